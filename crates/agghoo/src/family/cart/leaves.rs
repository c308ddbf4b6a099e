//! A grown tree reduced to what prediction needs: the splits, and values at the leaves only,
//! stored sparsely (the nonzero class fractions of each leaf). A random forest keeps its trees
//! in this form: a fully grown classification tree has mostly pure leaves, so its storage no
//! longer grows with the number of classes, and internal nodes carry no values at all.

use serde::{Deserialize, Serialize};

use super::tree::Tree;

/// The `feature` of a leaf.
const LEAF: u32 = u32::MAX;

/// A tree in preorder as parallel arrays (compact in memory and in a JSON model file; in a
/// binary serde format each array is one byte string, see [`packed`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct LeafTree {
    /// Per node: the split feature, or `u32::MAX` for a leaf.
    #[serde(with = "packed")]
    feature: Vec<u32>,
    /// Per node: rows with `x[feature] ≤ threshold` go left (0 for a leaf).
    #[serde(with = "packed")]
    threshold: Vec<f64>,
    /// Per node: the left child, or for a leaf its index among the leaves.
    #[serde(with = "packed")]
    left: Vec<u32>,
    /// Per node: the right child (0 for a leaf).
    #[serde(with = "packed")]
    right: Vec<u32>,
    /// Leaf `l`'s values are entries `offsets[l]..offsets[l + 1]` of `output` and `value`.
    #[serde(with = "packed")]
    offsets: Vec<u32>,
    /// The output index of each entry (the class; 0 for a regression mean).
    #[serde(with = "packed")]
    output: Vec<u32>,
    /// The value of each entry (a nonzero class fraction, or a nonzero mean).
    #[serde(with = "packed")]
    value: Vec<f64>,
}

/// A tree's arrays in a serde format: a sequence of numbers in a human-readable one (a JSON
/// model file, unchanged), one byte string of little-endian values in a binary one (a unit's
/// outcome crossing a cluster: written and read as a copy, where a sequence costs a call per
/// number; every `f64` keeps its bits either way).
pub(crate) mod packed {
    use serde::de::{Deserialize, Deserializer, Error, Visitor};
    use serde::ser::{Serialize, Serializer};

    /// A number of fixed width with a little-endian byte form.
    pub(crate) trait Le: Sized + Copy {
        /// Its width in bytes.
        const WIDTH: usize;
        /// Appends its bytes.
        fn put(self, out: &mut Vec<u8>);
        /// Reads it from `WIDTH` bytes.
        fn get(bytes: &[u8]) -> Self;
    }

    impl Le for u32 {
        const WIDTH: usize = 4;
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.to_le_bytes());
        }
        fn get(bytes: &[u8]) -> Self {
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        }
    }

    impl Le for f64 {
        const WIDTH: usize = 8;
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.to_bits().to_le_bytes());
        }
        fn get(bytes: &[u8]) -> Self {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[..8]);
            f64::from_bits(u64::from_le_bytes(b))
        }
    }

    pub(crate) fn serialize<T: Le + Serialize, S: Serializer>(values: &[T], serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return values.serialize(serializer);
        }
        let mut bytes = Vec::with_capacity(values.len() * T::WIDTH);
        values.iter().for_each(|v| v.put(&mut bytes));
        serializer.serialize_bytes(&bytes)
    }

    pub(crate) fn deserialize<'de, T: Le + Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        if deserializer.is_human_readable() {
            return Vec::<T>::deserialize(deserializer);
        }
        struct Bytes<T>(std::marker::PhantomData<T>);
        impl<T: Le> Visitor<'_> for Bytes<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a byte string of {}-byte little-endian numbers", T::WIDTH)
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<T>, E> {
                if !bytes.len().is_multiple_of(T::WIDTH) {
                    return Err(E::custom(format!("{} bytes are not a whole number of {}-byte values", bytes.len(), T::WIDTH)));
                }
                Ok(bytes.chunks_exact(T::WIDTH).map(T::get).collect())
            }
        }
        deserializer.deserialize_bytes(Bytes(std::marker::PhantomData))
    }
}

impl LeafTree {
    /// Keeps `tree`'s splits and its leaves' nonzero values (a zero adds nothing to a sum, so
    /// predictions are bit-identical). Returns `None` when `tree` is inconsistent (a value out
    /// of range), which only a corrupted model file can hold.
    pub fn from_tree(tree: &Tree) -> Option<Self> {
        let n = tree.nodes.len();
        let mut out = LeafTree {
            feature: Vec::with_capacity(n),
            threshold: Vec::with_capacity(n),
            left: Vec::with_capacity(n),
            right: Vec::with_capacity(n),
            offsets: vec![0],
            output: Vec::new(),
            value: Vec::new(),
        };
        for t in 0..n {
            match &tree.nodes[t].split {
                Some(s) => {
                    out.feature.push(s.feature);
                    out.threshold.push(s.threshold);
                    out.left.push(s.left);
                    out.right.push(s.right);
                }
                None => {
                    out.feature.push(LEAF);
                    out.threshold.push(0.0);
                    out.left.push(u32::try_from(out.offsets.len() - 1).ok()?);
                    out.right.push(0);
                    let values = tree.values.get(t.checked_mul(tree.width)?..(t + 1).checked_mul(tree.width)?)?;
                    for (k, &v) in values.iter().enumerate() {
                        if v != 0.0 {
                            out.output.push(u32::try_from(k).ok()?);
                            out.value.push(v);
                        }
                    }
                    out.offsets.push(u32::try_from(out.value.len()).ok()?);
                }
            }
        }
        Some(out)
    }

    /// Adds the values of the leaf `x` falls in to `sum` (indexed by output). `None` when the
    /// walk leaves the tree or visits more nodes than it has; [`LeafTree::validate`] rules both
    /// out.
    pub fn add_leaf_values(&self, sum: &mut [f64], x: &[f64]) -> Option<()> {
        let mut t = 0usize;
        for _ in 0..self.feature.len() {
            let feature = *self.feature.get(t)?;
            if feature == LEAF {
                let leaf = *self.left.get(t)? as usize;
                let (start, end) = (*self.offsets.get(leaf)? as usize, *self.offsets.get(leaf + 1)? as usize);
                for e in start..end {
                    *sum.get_mut(*self.output.get(e)? as usize)? += *self.value.get(e)?;
                }
                return Some(());
            }
            t = if *x.get(feature as usize)? <= *self.threshold.get(t)? { *self.left.get(t)? } else { *self.right.get(t)? } as usize;
        }
        None
    }

    /// Checks a deserialized tree: equal array lengths, split features below `n_features`,
    /// thresholds not NaN, leaf entries in order and in range with outputs below `width` and
    /// finite values, and every node reached exactly once from the root.
    pub fn validate(&self, n_features: usize, width: usize) -> std::result::Result<(), String> {
        let n = self.feature.len();
        if n == 0 {
            return Err("a tree without nodes".into());
        }
        if [self.threshold.len(), self.left.len(), self.right.len()].iter().any(|&l| l != n) || self.output.len() != self.value.len() {
            return Err("node or leaf arrays of different lengths".into());
        }
        if self.offsets.first() != Some(&0)
            || self.offsets.windows(2).any(|w| w[0] > w[1])
            || self.offsets.last().map(|&o| o as usize) != Some(self.value.len())
        {
            return Err("leaf offsets out of order or range".into());
        }
        if let Some(e) = (0..self.value.len()).find(|&e| self.output[e] as usize >= width || !self.value[e].is_finite()) {
            return Err(format!("leaf entry {e}: output {} of {width} with value {}", self.output[e], self.value[e]));
        }
        let n_leaves = self.offsets.len() - 1;
        super::tree::check_preorder_tree(n, |t| {
            if self.feature[t] == LEAF {
                return if (self.left[t] as usize) < n_leaves { Ok(None) } else { Err(format!("leaf {t} has no values")) };
            }
            if self.feature[t] as usize >= n_features {
                return Err(format!("node {t} splits on feature {}, the model has {n_features}", self.feature[t]));
            }
            if self.threshold[t].is_nan() {
                return Err(format!("node {t} has a NaN threshold"));
            }
            Ok(Some([self.left[t] as usize, self.right[t] as usize]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A split on feature 0 at 0.5 over two pure leaves (class 0 left, class 1 right).
    fn stump() -> LeafTree {
        LeafTree {
            feature: vec![0, LEAF, LEAF],
            threshold: vec![0.5, 0.0, 0.0],
            left: vec![1, 0, 1],
            right: vec![2, 0, 0],
            offsets: vec![0, 1, 2],
            output: vec![0, 1],
            value: vec![1.0, 1.0],
        }
    }

    #[test]
    fn a_binary_format_gets_each_array_as_one_little_endian_byte_string() {
        let tree = stump();
        let mut expected = vec![0x97]; // MessagePack: an array of the 7 fields
        let mut bin = |bytes: Vec<u8>| {
            expected.extend([0xc4, bytes.len() as u8]); // bin 8
            expected.extend(bytes);
        };
        let u32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect::<Vec<u8>>();
        bin(u32s(&tree.feature));
        bin(f64s(&tree.threshold));
        bin(u32s(&tree.left));
        bin(u32s(&tree.right));
        bin(u32s(&tree.offsets));
        bin(u32s(&tree.output));
        bin(f64s(&tree.value));
        let bytes = rmp_serde::to_vec(&tree).unwrap();
        assert_eq!(bytes, expected);
        assert_eq!(rmp_serde::from_slice::<LeafTree>(&bytes).unwrap(), tree);
        let named = rmp_serde::to_vec_named(&tree).unwrap();
        assert_eq!(rmp_serde::from_slice::<LeafTree>(&named).unwrap(), tree);
    }

    #[test]
    fn a_model_file_keeps_its_arrays_of_numbers() {
        let text = serde_json::to_string(&stump()).unwrap();
        assert_eq!(
            text,
            r#"{"feature":[0,4294967295,4294967295],"threshold":[0.5,0.0,0.0],"left":[1,0,1],"right":[2,0,0],"offsets":[0,1,2],"output":[0,1],"value":[1.0,1.0]}"#
        );
        assert_eq!(serde_json::from_str::<LeafTree>(&text).unwrap(), stump());
    }

    #[test]
    fn a_byte_string_that_is_not_whole_values_is_an_error() {
        let mut bytes = rmp_serde::to_vec(&stump()).unwrap();
        // the thresholds' byte string (24 bytes, after the array tag and feature's 2 + 12 bytes) cut to 23
        let at = 1 + 2 + 12;
        assert_eq!(bytes[at..at + 2], [0xc4, 24]);
        bytes[at + 1] = 23;
        bytes.remove(at + 2);
        let err = rmp_serde::from_slice::<LeafTree>(&bytes).unwrap_err().to_string();
        assert!(err.contains("23 bytes are not a whole number of 8-byte values"), "{err}");
    }
}
