//! One module per subcommand.

pub mod gen_data;
pub mod predict;
pub mod reproduce;
pub mod select;
pub mod splits;
