//! A grown tree reduced to what prediction needs: the splits, and values at the leaves only,
//! stored sparsely (the nonzero class fractions of each leaf). A random forest keeps its trees
//! in this form: a fully grown classification tree has mostly pure leaves, so its storage no
//! longer grows with the number of classes, and internal nodes carry no values at all.

use serde::{Deserialize, Serialize};

use super::tree::Tree;

/// The `feature` of a leaf.
const LEAF: u32 = u32::MAX;

/// A tree in preorder as parallel arrays (compact in memory and in a JSON model file; in a
/// binary serde format each array is one byte string, its integers narrowed, see [`packed`]).
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
/// model file, unchanged), one byte string in a binary one (a unit's outcome crossing a cluster:
/// written and read as a copy, where a sequence costs a call per number). An integer array is as
/// narrow as its values allow: a first byte gives the width (1, 2 or 4 bytes), then each value
/// plus one (mod 2³², so that a leaf's `u32::MAX` is 0), little-endian; an `f64` array is its
/// values' little-endian bits, or its common value once and a bitmap (see [`Le`] for `f64`).
/// Every value comes back exact either way.
pub(crate) mod packed {
    use serde::de::{Deserialize, Deserializer, Error, Visitor};
    use serde::ser::{Serialize, Serializer};

    /// A number with a byte-string form for an array of it.
    pub(crate) trait Le: Sized + Copy {
        /// What the byte string holds (for an error message).
        const EXPECTING: &'static str;
        /// The byte string of `values`.
        fn pack(values: &[Self]) -> Vec<u8>;
        /// The values of a byte string [`Le::pack`] made, or what is wrong with it.
        fn unpack(bytes: &[u8]) -> Result<Vec<Self>, String>;
    }

    impl Le for u32 {
        const EXPECTING: &'static str = "a width byte (1, 2 or 4) and little-endian numbers of that width";
        fn pack(values: &[u32]) -> Vec<u8> {
            let max = values.iter().map(|v| v.wrapping_add(1)).max().unwrap_or(0);
            let width = if max <= u8::MAX.into() {
                1
            } else if max <= u16::MAX.into() {
                2
            } else {
                4
            };
            let mut bytes = Vec::with_capacity(1 + values.len() * width);
            bytes.push(width as u8);
            for v in values {
                bytes.extend_from_slice(&v.wrapping_add(1).to_le_bytes()[..width]);
            }
            bytes
        }
        fn unpack(bytes: &[u8]) -> Result<Vec<u32>, String> {
            let Some((&width, rest)) = bytes.split_first() else {
                return Err("an empty byte string has no width byte".into());
            };
            let width = usize::from(width);
            if ![1, 2, 4].contains(&width) {
                return Err(format!("width byte {width}: not 1, 2 or 4"));
            }
            if !rest.len().is_multiple_of(width) {
                return Err(format!("{} bytes are not a whole number of {width}-byte values", rest.len()));
            }
            Ok(rest
                .chunks_exact(width)
                .map(|c| {
                    let mut b = [0u8; 4];
                    b[..width].copy_from_slice(c);
                    u32::from_le_bytes(b).wrapping_sub(1)
                })
                .collect())
        }
    }

    /// A first byte 0: each value's little-endian bits. A first byte 1: the array's length
    /// (`u32`), a common value's bits, a bitmap (bit `i % 8` of byte `i / 8`: value `i` is the
    /// common one), then the other values' bits in order — the smaller of the two, the common
    /// value being the majority one when there is one (0 among a tree's thresholds, where every
    /// leaf has 0; 1 among its leaf values, where most leaves are pure).
    impl Le for f64 {
        const EXPECTING: &'static str = "a mode byte (0: plain, 1: a common value and a bitmap) and 8-byte little-endian numbers";
        fn pack(values: &[f64]) -> Vec<u8> {
            let bits = |v: &f64| v.to_bits();
            let (mut common, mut votes) = (0u64, 0usize);
            for b in values.iter().map(bits) {
                if votes == 0 {
                    common = b;
                }
                votes = if b == common { votes + 1 } else { votes - 1 };
            }
            let n = values.len();
            let count = values.iter().filter(|v| bits(v) == common).count();
            if u32::try_from(n).is_err() || 12 + n.div_ceil(8) >= 8 * count {
                let mut bytes = Vec::with_capacity(1 + 8 * n);
                bytes.push(0);
                values.iter().for_each(|v| bytes.extend_from_slice(&bits(v).to_le_bytes()));
                return bytes;
            }
            let mut bytes = Vec::with_capacity(13 + n.div_ceil(8) + 8 * (n - count));
            bytes.push(1);
            bytes.extend_from_slice(&(n as u32).to_le_bytes());
            bytes.extend_from_slice(&common.to_le_bytes());
            for chunk in values.chunks(8) {
                bytes.push(chunk.iter().enumerate().fold(0u8, |m, (i, v)| m | (u8::from(bits(v) == common) << i)));
            }
            values.iter().filter(|v| bits(v) != common).for_each(|v| bytes.extend_from_slice(&bits(v).to_le_bytes()));
            bytes
        }
        fn unpack(bytes: &[u8]) -> Result<Vec<f64>, String> {
            let value = |c: &[u8]| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                f64::from_bits(u64::from_le_bytes(b))
            };
            let whole = |rest: &[u8]| {
                if rest.len().is_multiple_of(8) {
                    Ok(())
                } else {
                    Err(format!("{} bytes are not a whole number of 8-byte values", rest.len()))
                }
            };
            match bytes.split_first() {
                None => Err("an empty byte string has no mode byte".into()),
                Some((0, rest)) => {
                    whole(rest)?;
                    Ok(rest.chunks_exact(8).map(value).collect())
                }
                Some((1, rest)) if rest.len() >= 12 => {
                    let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
                    let common = value(&rest[4..12]);
                    let Some((bitmap, others)) = rest[12..].split_at_checked(n.div_ceil(8)) else {
                        return Err(format!("a bitmap of {n} values is cut short"));
                    };
                    let is_common = |i: usize| (bitmap[i / 8] >> (i % 8)) & 1 == 1;
                    let count = (0..n).filter(|&i| is_common(i)).count();
                    whole(others)?;
                    if others.len() / 8 != n - count {
                        return Err(format!("{} values besides the {count} common of {n}", others.len() / 8));
                    }
                    let mut others = others.chunks_exact(8).map(value);
                    Ok((0..n).map(|i| if is_common(i) { common } else { others.next().unwrap_or(common) }).collect())
                }
                Some((1, rest)) => Err(format!("{} bytes cannot hold a length and a common value", rest.len())),
                Some((mode, _)) => Err(format!("mode byte {mode}: not 0 or 1")),
            }
        }
    }

    pub(crate) fn serialize<T: Le + Serialize, S: Serializer>(values: &[T], serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return values.serialize(serializer);
        }
        serializer.serialize_bytes(&T::pack(values))
    }

    pub(crate) fn deserialize<'de, T: Le + Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        if deserializer.is_human_readable() {
            return Vec::<T>::deserialize(deserializer);
        }
        struct Bytes<T>(std::marker::PhantomData<T>);
        impl<T: Le> Visitor<'_> for Bytes<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a byte string of {}", T::EXPECTING)
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<T>, E> {
                T::unpack(bytes).map_err(E::custom)
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
        // small integers: width 1, each value plus one (a leaf's u32::MAX is 0)
        let u32s = |v: &[u32]| [1].into_iter().chain(v.iter().map(|x| x.wrapping_add(1) as u8)).collect::<Vec<u8>>();
        let f64 = |x: f64| x.to_bits().to_le_bytes();
        bin(u32s(&tree.feature));
        // thresholds [0.5, 0, 0]: 3 values, 0 common (bitmap 0b110), then 0.5
        bin([&[1, 3, 0, 0, 0][..], &f64(0.0), &[0b110], &f64(0.5)].concat());
        bin(u32s(&tree.left));
        bin(u32s(&tree.right));
        bin(u32s(&tree.offsets));
        bin(u32s(&tree.output));
        // values [1, 1]: 2 values, 1 common (bitmap 0b11), no other
        bin([&[1, 2, 0, 0, 0][..], &f64(1.0), &[0b11]].concat());
        assert_eq!(u32s(&tree.feature), [1, 1, 0, 0]);
        let bytes = rmp_serde::to_vec(&tree).unwrap();
        assert_eq!(bytes, expected);
        assert_eq!(rmp_serde::from_slice::<LeafTree>(&bytes).unwrap(), tree);
        let named = rmp_serde::to_vec_named(&tree).unwrap();
        assert_eq!(rmp_serde::from_slice::<LeafTree>(&named).unwrap(), tree);
    }

    /// An `f64` array is plain bits, or its majority value once with a bitmap when that is
    /// smaller; every value's bits come back (−0 and NaN payloads included).
    #[test]
    fn float_arrays_take_a_common_value_when_it_saves_bytes_and_come_back_bit_for_bit() {
        use packed::Le;
        let nan = f64::from_bits(0x7ff8_0000_0000_0123);
        for (values, mode) in [
            (vec![], 0),
            (vec![0.5, 0.0], 0),
            (vec![0.0, -0.0, 0.0, 2.0], 1),
            (vec![0.0; 3], 1),
            (vec![1.5, 0.0, -0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 0.0, nan], 1),
            ((0..40).map(|i| if i % 3 == 0 { 1.0 } else { f64::from(i) }).collect(), 0),
            ((0..40).map(|i| if i % 3 == 0 { f64::from(i) } else { 1.0 }).collect(), 1),
        ] {
            let bytes = f64::pack(&values);
            assert_eq!(bytes[0], mode, "{values:?}");
            let plain = 1 + 8 * values.len();
            assert!(bytes.len() <= plain, "{values:?}");
            let back = f64::unpack(&bytes).unwrap();
            assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_float_byte_string_that_does_not_add_up_is_an_error() {
        use packed::Le;
        let common = f64::pack(&[1.5, 0.0, 0.0, 0.0]); // 1, n = 4, 0, bitmap 0b1110, 1.5
        assert_eq!(common.len(), 1 + 4 + 8 + 1 + 8);
        for (bytes, message) in [
            (vec![], "no mode byte".to_string()),
            (vec![2, 0], "mode byte 2".into()),
            (vec![0, 1, 2, 3], "3 bytes are not a whole number of 8-byte values".into()),
            (common[..10].to_vec(), "9 bytes cannot hold".into()),
            (common[..13].to_vec(), "a bitmap of 4 values is cut short".into()),
            (common[..21].to_vec(), "7 bytes are not a whole number".into()),
            ([&common[..], &[0; 8]].concat(), "2 values besides the 3 common of 4".into()),
            ([&common[..13], &[0b1111], &common[14..]].concat(), "1 values besides the 4 common of 4".into()),
        ] {
            let err = f64::unpack(&bytes).unwrap_err();
            assert!(err.contains(&message), "{err} (expected {message})");
        }
    }

    /// Each integer array takes the narrowest width its largest value (plus one) fits, and
    /// comes back exact at every width's edges.
    #[test]
    fn integer_arrays_take_the_narrowest_width_and_come_back_exact() {
        use packed::Le;
        for (values, width) in [
            (vec![], 1),
            (vec![0, 254, LEAF], 1),
            (vec![255], 2),
            (vec![3, 65_534, LEAF], 2),
            (vec![65_535], 4),
            (vec![0, LEAF - 1, LEAF], 4),
        ] {
            let bytes = u32::pack(&values);
            assert_eq!((bytes[0] as usize, bytes.len()), (width, 1 + width * values.len()), "{values:?}");
            assert_eq!(u32::unpack(&bytes).unwrap(), values);
        }
    }

    #[test]
    fn an_integer_byte_string_without_a_valid_width_is_an_error() {
        use packed::Le;
        assert!(u32::unpack(&[]).unwrap_err().contains("no width byte"));
        assert!(u32::unpack(&[3, 1, 2, 3]).unwrap_err().contains("width byte 3"));
        assert!(u32::unpack(&[2, 1, 2, 3]).unwrap_err().contains("3 bytes are not a whole number of 2-byte values"));
        // through serde, as a unit's outcome is read: the width byte of `feature` made 8
        let mut bytes = rmp_serde::to_vec(&stump()).unwrap();
        assert_eq!(bytes[1..4], [0xc4, 4, 1]);
        bytes[3] = 8;
        let err = rmp_serde::from_slice::<LeafTree>(&bytes).unwrap_err().to_string();
        assert!(err.contains("width byte 8"), "{err}");
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
}
