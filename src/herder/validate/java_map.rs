//! How Java prints the `HashMap` Kafka copies a connector configuration into, for the
//! "contains no connector type" message of validation.

/// Java's `String.hashCode`: over UTF-16 code units, wrapping.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `props` as Java prints the `HashMap` Kafka copies them into (`{k1=v1, k2=null}`): entries
/// in bucket order of a table sized by the copy constructor (JDK 19+), insertion order within
/// a bucket. (Bins large enough to be treeified are not modelled.)
pub(super) fn java_map_string(props: &[(String, Option<String>)]) -> String {
    let capacity = if props.is_empty() {
        1
    } else {
        // ceil(size / 0.75), then the next power of two (`tableSizeFor`).
        (props.len() * 4).div_ceil(3).next_power_of_two()
    };
    let mask = u32::try_from(capacity - 1).unwrap_or(u32::MAX);
    let bucket = |key: &str| {
        let h = java_hash(key) as u32;
        (h ^ (h >> 16)) & mask
    };
    let mut ordered: Vec<&(String, Option<String>)> = props.iter().collect();
    ordered.sort_by_key(|(k, _)| bucket(k));
    let entries: Vec<String> = ordered
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("null")))
        .collect();
    format!("{{{}}}", entries.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
        p.iter()
            .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
            .collect()
    }

    #[test]
    fn java_hash_matches_string_hash_code() {
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("name"), 3_373_707);
        assert_eq!(java_hash("connector.class"), -862_495_593);
    }

    /// Expected strings printed by `new HashMap<>(linkedHashMap)` on JDK 17 and JDK 25.
    #[test]
    fn maps_print_like_java_hash_maps() {
        assert_eq!(java_map_string(&[]), "{}");
        assert_eq!(java_map_string(&pairs(&[("name", Some("x"))])), "{name=x}");
        assert_eq!(
            java_map_string(&pairs(&[("name", Some("x")), ("a", None)])),
            "{name=x, a=null}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("")),
                ("topic", Some("")),
                ("file", Some(""))
            ])),
            "{name=, topic=, file=}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("v")),
                ("tasks.max", Some("1")),
                ("topic", Some("t")),
                ("file", Some("f.txt")),
                ("batch.size", Some("10")),
            ])),
            "{name=v, topic=t, file=f.txt, tasks.max=1, batch.size=10}"
        );
        assert_eq!(
            java_map_string(&pairs(&[
                ("name", Some("n")),
                ("tasks.max", Some("1")),
                ("topic", Some("t")),
                ("file", Some("f")),
                ("batch.size", Some("10")),
                ("key.converter", Some("k")),
                ("value.converter", Some("v")),
                ("errors.tolerance", Some("all")),
                ("transforms", Some("x")),
            ])),
            "{file=f, tasks.max=1, batch.size=10, name=n, transforms=x, topic=t, \
             errors.tolerance=all, value.converter=v, key.converter=k}"
        );
    }
}
