//! JAAS login configurations: the files Kafka users name with
//! `-Djava.security.auth.login.config=FILE` in `KAFKA_OPTS` (sections of login modules with their
//! flag and options; the REST server's basic authentication reads them) and a Kafka client's
//! `sasl.jaas.config` (login modules without a section).
//!
//! ```text
//! KafkaConnect {
//!   org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
//!   file="/etc/connect/credentials.properties";
//! };
//! ```
//!
//! `//`, `/* */` and `#` comments are skipped; option values are words or double-quoted
//! strings (with `\\` and `\"` escapes).

use std::collections::BTreeMap;

/// The JVM option that names the JAAS file.
const LOGIN_CONFIG_OPTION: &str = "-Djava.security.auth.login.config=";

/// One login module of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JaasEntry {
    /// The login module class.
    pub class: String,
    /// `required`, `requisite`, `sufficient` or `optional` (lower-cased).
    pub flag: String,
    /// The module's options (values may be secrets: never log them).
    pub options: BTreeMap<String, String>,
}

/// A named section (`KafkaConnect`, `KafkaClient`, ...) of a JAAS file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JaasSection {
    /// The section (application) name, case-sensitive as in Java.
    pub name: String,
    /// Its login modules, in order.
    pub entries: Vec<JaasEntry>,
}

/// The JAAS file named by `-Djava.security.auth.login.config=` in a `KAFKA_OPTS` value (the last
/// one wins, as for the JVM); `==FILE` (Java's "only this file" form) and a `file:` URL are
/// understood.
pub fn login_config_from_jvm_options(options: &str) -> Option<String> {
    let value = options
        .split_whitespace()
        .filter_map(|arg| arg.strip_prefix(LOGIN_CONFIG_OPTION))
        .next_back()?;
    let value = value.strip_prefix('=').unwrap_or(value);
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    let value = value
        .strip_prefix("file://")
        .or_else(|| value.strip_prefix("file:"))
        .unwrap_or(value);
    (!value.is_empty()).then(|| value.to_owned())
}

/// Parses a JAAS file's text.
///
/// # Errors
/// A syntax error, described with its line (option values are never quoted in messages).
pub fn parse(text: &str) -> Result<Vec<JaasSection>, String> {
    let tokens = tokenize(text)?;
    let mut it = tokens.into_iter().peekable();
    let mut sections = Vec::new();
    while let Some((line, token)) = it.next() {
        let Token::Word(name) = token else {
            return Err(format!("line {line}: expected a section name"));
        };
        expect(&mut it, &Token::Open, "'{'", line)?;
        let entries = parse_entries(&mut it, Some(&name))?;
        expect(&mut it, &Token::Semicolon, "';' after '}'", line)?;
        sections.push(JaasSection { name, entries });
    }
    Ok(sections)
}

/// Parses login modules without a section, as a Kafka client's `sasl.jaas.config` holds them
/// (`<class> <flag> [<option>=<value>]... ;`).
///
/// # Errors
/// A syntax error, described with its line (option values are never quoted in messages).
pub fn parse_modules(text: &str) -> Result<Vec<JaasEntry>, String> {
    let tokens = tokenize(text)?;
    let mut it = tokens.into_iter().peekable();
    parse_entries(&mut it, None)
}

/// The login modules up to the section's `}` (`section` names it), or to the end of the text
/// (`section` is `None`).
fn parse_entries(
    it: &mut impl Iterator<Item = (usize, Token)>,
    section: Option<&str>,
) -> Result<Vec<JaasEntry>, String> {
    let place = section.map_or_else(
        || "the JAAS configuration".to_owned(),
        |s| format!("section {s}"),
    );
    let mut entries = Vec::new();
    loop {
        let class = match (it.next(), section) {
            (None, None) | (Some((_, Token::Close)), Some(_)) => break,
            (None, Some(_)) => return Err(format!("{place}: missing '}}'")),
            (Some((_, Token::Word(class))), _) => class,
            (Some((line, _)), _) => {
                return Err(format!("line {line}: expected a login module class"))
            }
        };
        let Some((line, Token::Word(flag))) = it.next() else {
            return Err(format!(
                "{place}: expected a flag (required, requisite, sufficient, optional) after {class}"
            ));
        };
        let flag = flag.to_ascii_lowercase();
        if !["required", "requisite", "sufficient", "optional"].contains(&flag.as_str()) {
            return Err(format!(
                "line {line}: unknown flag {flag} (expected required, requisite, sufficient or \
                 optional)"
            ));
        }
        let mut options = BTreeMap::new();
        loop {
            match it.next() {
                Some((_, Token::Semicolon)) => break,
                Some((line, Token::Word(key))) => {
                    expect(it, &Token::Equals, "'=' after an option name", line)?;
                    match it.next() {
                        Some((_, Token::Word(v) | Token::Quoted(v))) => {
                            options.insert(key, v);
                        }
                        _ => return Err(format!("line {line}: option {key} has no value")),
                    }
                }
                Some((line, _)) => return Err(format!("line {line}: expected an option or ';'")),
                None => return Err(format!("{place}: missing ';' after {class}")),
            }
        }
        entries.push(JaasEntry {
            class,
            flag,
            options,
        });
    }
    Ok(entries)
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Open,
    Close,
    Semicolon,
    Equals,
}

fn expect(
    it: &mut impl Iterator<Item = (usize, Token)>,
    want: &Token,
    what: &str,
    line: usize,
) -> Result<(), String> {
    match it.next() {
        Some((_, t)) if &t == want => Ok(()),
        Some((line, _)) => Err(format!("line {line}: expected {what}")),
        None => Err(format!(
            "line {line}: expected {what} before the end of the file"
        )),
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => skip_line(&mut chars, &mut line),
            '/' if chars.peek() == Some(&'/') => skip_line(&mut chars, &mut line),
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let start = line;
                let mut prev = ' ';
                loop {
                    match chars.next() {
                        Some('/') if prev == '*' => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            prev = c;
                        }
                        None => return Err(format!("line {start}: unclosed /* comment")),
                    }
                }
            }
            '{' => tokens.push((line, Token::Open)),
            '}' => tokens.push((line, Token::Close)),
            ';' => tokens.push((line, Token::Semicolon)),
            '=' => tokens.push((line, Token::Equals)),
            '"' => {
                let start = line;
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => value.push(c),
                            None => return Err(format!("line {start}: unclosed quote")),
                        },
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            value.push(c);
                        }
                        None => return Err(format!("line {start}: unclosed quote")),
                    }
                }
                tokens.push((start, Token::Quoted(value)));
            }
            c => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || "{};=\"".contains(n) {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                tokens.push((line, Token::Word(word)));
            }
        }
    }
    Ok(tokens)
}

fn skip_line(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, line: &mut usize) {
    for c in chars.by_ref() {
        if c == '\n' {
            *line += 1;
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kafka_connect_and_other_sections() {
        let text = r#"
            // The REST API's users.
            KafkaConnect {
              org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
              file="/etc/connect/credentials.properties";
            };
            /* Clients
               of Kafka */
            KafkaClient {
              org.apache.kafka.common.security.plain.PlainLoginModule REQUIRED
              username=alice password="p\"w;{}";
            };
        "#;
        let sections = parse(text).expect("parse");
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].name, "KafkaConnect");
        let e = &sections[0].entries[0];
        assert!(e.class.ends_with(".PropertyFileLoginModule"));
        assert_eq!(e.flag, "required");
        assert_eq!(e.options["file"], "/etc/connect/credentials.properties");
        let c = &sections[1].entries[0];
        assert_eq!(c.options["username"], "alice");
        assert_eq!(c.options["password"], "p\"w;{}");
    }

    #[test]
    fn syntax_errors_name_the_line_not_values() {
        let e = parse("KafkaConnect {\n  Module required\n  password=\"hunter2\"\n};").unwrap_err();
        assert!(
            e.contains("line 4") && e.contains("expected an option or ';'"),
            "{e}"
        );
        assert!(!e.contains("hunter2"), "{e}");
        let e = parse("KafkaConnect {\n Module maybe;\n};").unwrap_err();
        assert!(e.contains("line 2") && e.contains("unknown flag"), "{e}");
        let e = parse("KafkaConnect {\n Module required;\n}").unwrap_err();
        assert!(e.contains("';' after '}'"), "{e}");
    }

    #[test]
    fn finds_the_login_config_in_kafka_opts() {
        let opts = "-Xmx1g -Djava.security.auth.login.config=/a/jaas.conf -Dfoo=bar";
        assert_eq!(
            login_config_from_jvm_options(opts).as_deref(),
            Some("/a/jaas.conf")
        );
        let opts = "-Djava.security.auth.login.config=/a -Djava.security.auth.login.config==/b";
        assert_eq!(login_config_from_jvm_options(opts).as_deref(), Some("/b"));
        let opts = "-Djava.security.auth.login.config=file:/c/jaas.conf";
        assert_eq!(
            login_config_from_jvm_options(opts).as_deref(),
            Some("/c/jaas.conf")
        );
        assert_eq!(login_config_from_jvm_options("-Xmx1g"), None);
    }

    #[test]
    fn reads_client_modules_without_a_section() {
        let m = parse_modules(
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             username=\"alice\" password=\"s3cr;et \\\"q\\\"\";",
        )
        .unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            m[0].class,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(m[0].flag, "required");
        assert_eq!(m[0].options["username"], "alice");
        assert_eq!(m[0].options["password"], "s3cr;et \"q\"");
        let m = parse_modules(
            "org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED\n  username=bob\n  password=pw ;",
        )
        .unwrap();
        assert_eq!(
            (m[0].flag.as_str(), m[0].options["password"].as_str()),
            ("required", "pw")
        );
        assert_eq!(parse_modules("A required; B required;").unwrap().len(), 2);
        assert!(parse_modules("  ").unwrap().is_empty());
        for text in [
            "Module required password=\"hunter2",
            "Module required password=hunter2",
            "Module maybe password=hunter2;",
            "Module required password hunter2;",
            "Module required; }",
        ] {
            let e = parse_modules(text).unwrap_err();
            assert!(!e.contains("hunter2"), "{e}");
        }
    }
}
