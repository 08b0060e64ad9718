//! Cases from Maven's `ComparableVersionTest` and `VersionRangeTest`, each checked against
//! maven-artifact 3.9.15 (the jar Kafka Connect 4.3 ships) with its `ComparableVersion` main
//! and `VersionRange.createFromVersionSpec`.

use std::cmp::Ordering;

use super::*;

fn v(s: &str) -> Version {
    Version::new(s)
}

fn assert_ascending(versions: &[&str]) {
    for pair in versions.windows(2) {
        assert_eq!(
            v(pair[0]).cmp(&v(pair[1])),
            Ordering::Less,
            "{} < {}",
            pair[0],
            pair[1]
        );
        assert_eq!(v(pair[1]).cmp(&v(pair[0])), Ordering::Greater);
    }
}

fn assert_equal(versions: &[&str]) {
    for a in versions {
        for b in versions {
            assert_eq!(v(a).cmp(&v(b)), Ordering::Equal, "{a} == {b}");
        }
    }
}

#[test]
fn qualifiers_order_as_maven() {
    assert_ascending(&[
        "1-alpha2snapshot",
        "1-alpha2",
        "1-alpha-123",
        "1-beta-2",
        "1-beta123",
        "1-m2",
        "1-m11",
        "1-rc",
        "1-cr2",
        "1-rc123",
        "1-SNAPSHOT",
        "1",
        "1-sp",
        "1-sp2",
        "1-sp123",
        "1-abc",
        "1-def",
        "1-pom-1",
        "1-1-snapshot",
        "1-1",
        "1-2",
        "1-123",
    ]);
}

#[test]
fn numbers_and_separators_order_as_maven() {
    assert_ascending(&[
        "2.0", "2.0.a", "2-1", "2.0.2", "2.0.123", "2.1.0", "2.1-a", "2.1b", "2.1-c", "2.1-1",
        "2.1.0.1", "2.2", "2.123", "11.a2", "11.a11", "11.b2", "11.b11", "11.m2", "11.m11", "11",
        "11.a", "11b", "11c", "11m",
    ]);
}

#[test]
fn plugin_versions_seen_in_the_wild_order_as_maven() {
    assert_ascending(&["3.6.1.Final", "3.7.0.Alpha1", "3.7.0.Beta1", "3.7.0.CR1"]);
    assert_ascending(&[
        "3.7.0.Alpha1",
        "3.7.0-SNAPSHOT",
        "3.7.0.Final",
        "4.3.1-SNAPSHOT",
    ]);
    assert_ascending(&["4.3.1-SNAPSHOT", "4.3.1", "4.3.10", "10"]);
    assert_ascending(&["", "undefined", "1.0"]);
    assert_ascending(&["1.2.3-SNAPSHOT", "1.2.3", "1.2.3-sp1", "1.2.3.1"]);
    // Numbers beyond 64 bits compare as numbers.
    assert_ascending(&["1.99999999999999999999", "1.100000000000000000000"]);
}

#[test]
fn equal_versions_as_maven() {
    assert_equal(&[
        "1",
        "1.0",
        "1.0.0",
        "1-0",
        "1-0.0",
        "1.0-0",
        "1ga",
        "1-ga",
        "1.ga",
        "1.0-final",
        "1-FINAL",
        "1-release",
        "1.RELEASE",
    ]);
    assert_equal(&["1a1", "1-a1", "1-alpha-1", "1alpha1", "1-ALPHA1"]);
    assert_equal(&["1cr1", "1rc1", "1-RC-1"]);
    assert_equal(&["1x", "1-x", "1.x"]);
    assert_equal(&["3.6.1.Final", "3.6.1"]);
    assert_equal(&["0010", "10"]);
    assert_equal(&["1.0-SNAPSHOT", "1.0.0-SNAPSHOT"]);
    assert_equal(&["2.0.0.RC1", "2.0.0-RC1"]);
    assert_equal(&["1-1.foo-bar1baz-.1", "1-1.foo-bar-1-baz-0.1"]);
}

#[test]
fn a_version_shows_as_given() {
    assert_eq!(v("3.6.1.Final").to_string(), "3.6.1.Final");
}

/// (spec, Maven's toString or error, contains 1.5, contains 2.0).
const RANGES: &[(&str, Result<&str, &str>, bool, bool)] = &[
    ("[1.2.3]", Ok("[1.2.3,1.2.3]"), false, false),
    ("[1.0,2.0)", Ok("[1.0,2.0)"), true, false),
    ("(,1.0],[1.2,)", Ok("(,1.0],[1.2,)"), true, true),
    ("1.0", Ok("1.0"), true, true),
    ("[1.5,)", Ok("[1.5,)"), true, true),
    ("[1.0,1.0]", Ok("[1.0,1.0]"), false, false),
    ("[1.0,2.0),[2.0,3.0]", Ok("[1.0,2.0),[2.0,3.0]"), true, true),
    ("(,1.0],[1.0,)", Ok("(,1.0],[1.0,)"), true, true),
    ("", Ok(""), false, false),
    ("[1.0", Err("Unbounded range: [1.0"), false, false),
    (
        "(1.0)",
        Err("Single version must be surrounded by []: (1.0)"),
        false,
        false,
    ),
    (
        "[2.0,1.0]",
        Err("Range defies version ordering: [2.0,1.0]"),
        false,
        false,
    ),
    (
        "(1.0,1.0]",
        Err("Range defies version ordering: (1.0,1.0]"),
        false,
        false,
    ),
    (
        "[1.0,2.0],[1.5,3.0]",
        Err("Ranges overlap: [1.0,2.0],[1.5,3.0]"),
        false,
        false,
    ),
    (
        "[1.0,2.0],(,3.0]",
        Err("Ranges overlap: [1.0,2.0],(,3.0]"),
        false,
        false,
    ),
    (
        "[1.0,2.0]x",
        Err("Only fully-qualified sets allowed in multiple set scenario: [1.0,2.0]x"),
        false,
        false,
    ),
    (
        "[1.0,2.0],1.5",
        Err("Only fully-qualified sets allowed in multiple set scenario: [1.0,2.0],1.5"),
        false,
        false,
    ),
];

#[test]
fn ranges_parse_show_and_contain_as_maven() {
    for (spec, expected, has_15, has_20) in RANGES {
        match (VersionRange::parse(spec), expected) {
            (Ok(r), Ok(text)) => {
                assert_eq!(r.to_string(), *text, "{spec}");
                assert_eq!(r.contains(&v("1.5")), *has_15, "{spec} contains 1.5");
                assert_eq!(r.contains(&v("2.0")), *has_20, "{spec} contains 2.0");
            }
            (Err(e), Err(message)) => assert_eq!(e.to_string(), *message, "{spec}"),
            (got, _) => panic!("{spec}: {got:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn kafka_requirement_makes_a_soft_version_hard() {
    assert_eq!(version_requirement(None), Ok(None));
    assert_eq!(version_requirement(Some("latest")), Ok(None));
    let hard = version_requirement(Some(" 1.2.3 ")).unwrap().unwrap();
    assert_eq!(hard.to_string(), "[1.2.3,1.2.3]");
    assert!(hard.contains(&v("1.2.3")));
    assert!(hard.contains(&v("1.2.3.0")));
    assert!(!hard.contains(&v("1.2.4")));
    let range = version_requirement(Some("[1.0,2.0)")).unwrap().unwrap();
    assert!(range.contains(&v("1.9")) && !range.contains(&v("2.0")));
    assert_eq!(
        version_requirement(Some("[1.0")).unwrap_err().to_string(),
        "Unbounded range: [1.0"
    );
}
