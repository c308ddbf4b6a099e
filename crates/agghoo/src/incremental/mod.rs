//! Placeholder: see the issue tracker.
