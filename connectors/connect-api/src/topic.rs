//! Kafka's topic name rules (`org.apache.kafka.common.internals.Topic.validate`), so that a
//! configuration naming a topic Kafka would refuse is refused when it is validated, not when a
//! task first writes to it.

/// The longest topic name Kafka accepts, in UTF-16 code units (Java's `String.length`).
pub const MAX_NAME_LENGTH: usize = 249;

/// Why Kafka refuses `name` as a topic name, in Kafka's words (`Topic name is invalid: ...`);
/// `None` when it is a legal name: 1 to 249 characters of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn topic_name_problem(name: &str) -> Option<String> {
    let reason = if name.is_empty() {
        "the empty string is not allowed".to_owned()
    } else if name == "." {
        "'.' is not allowed".to_owned()
    } else if name == ".." {
        "'..' is not allowed".to_owned()
    } else if name.encode_utf16().count() > MAX_NAME_LENGTH {
        format!("the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' \
             and '-'"
        )
    } else {
        return None;
    };
    Some(format!("Topic name is invalid: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_names_pass() {
        for name in ["t", "a.b_c-D9", "...", "_", &"x".repeat(249)] {
            assert_eq!(topic_name_problem(name), None, "{name}");
        }
    }

    #[test]
    fn illegal_names_get_kafkas_messages_in_kafkas_order() {
        let problem = |n: &str| topic_name_problem(n).unwrap();
        assert_eq!(
            problem(""),
            "Topic name is invalid: the empty string is not allowed"
        );
        assert_eq!(problem("."), "Topic name is invalid: '.' is not allowed");
        assert_eq!(problem(".."), "Topic name is invalid: '..' is not allowed");
        let long = "é".repeat(250);
        assert_eq!(
            problem(&long),
            format!(
                "Topic name is invalid: the length of '{long}' is longer than the max allowed \
                 length 249"
            )
        );
        assert_eq!(
            problem("../../../evil"),
            "Topic name is invalid: '../../../evil' contains one or more characters other than \
             ASCII alphanumerics, '.', '_' and '-'"
        );
        assert!(problem("a/b").contains("'a/b' contains one or more characters"));
        assert!(problem("é").contains("'é' contains"));
        assert!(problem("a b").contains("'a b' contains"));
    }
}
