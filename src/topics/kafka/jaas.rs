//! Reading the JAAS text of a Java client's `sasl.jaas.config`:
//! `<LoginModule class> <flag> [<option>=<value>]... ;`, values bare or in double quotes.
//!
//! Errors never quote the text: it holds passwords.

use std::collections::BTreeMap;

/// One login module entry of a JAAS configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginModule {
    /// The login module's Java class name.
    pub class: String,
    /// `required`, `requisite`, `sufficient` or `optional`.
    pub flag: String,
    /// The module's options.
    pub options: BTreeMap<String, String>,
}

/// Why a JAAS text could not be read (never quoting it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JaasError {
    /// The text does not follow the JAAS grammar.
    #[error("expected {expected} at character {at} of the JAAS configuration")]
    Syntax {
        /// What was expected.
        expected: &'static str,
        /// 1-based character position.
        at: usize,
    },
    /// A client's `sasl.jaas.config` must hold exactly one login module (as in Kafka).
    #[error("the JAAS configuration must contain exactly one login module, found {0}")]
    ModuleCount(usize),
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::iter::Enumerate<std::str::Chars<'a>>>,
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Semicolon,
}

impl Lexer<'_> {
    fn skip_space_and_comments(&mut self) {
        while let Some(&(_, c)) = self.chars.peek() {
            if c.is_whitespace() {
                self.chars.next();
            } else {
                break;
            }
        }
    }

    /// The next token and its 1-based position, or `None` at the end.
    fn next(&mut self) -> Result<Option<(usize, Token)>, JaasError> {
        self.skip_space_and_comments();
        let Some((i, c)) = self.chars.next() else {
            return Ok(None);
        };
        let at = i + 1;
        let token = match c {
            '=' => Token::Equals,
            ';' => Token::Semicolon,
            '"' => {
                let mut s = String::new();
                loop {
                    match self.chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match self.chars.next() {
                            Some((_, e)) => s.push(e),
                            None => {
                                return Err(JaasError::Syntax {
                                    expected: "a closing quote",
                                    at,
                                })
                            }
                        },
                        Some((_, ch)) => s.push(ch),
                        None => {
                            return Err(JaasError::Syntax {
                                expected: "a closing quote",
                                at,
                            })
                        }
                    }
                }
                Token::Quoted(s)
            }
            _ => {
                let mut s = String::from(c);
                while let Some(&(_, ch)) = self.chars.peek() {
                    if ch.is_whitespace() || matches!(ch, '=' | ';' | '"') {
                        break;
                    }
                    s.push(ch);
                    self.chars.next();
                }
                Token::Word(s)
            }
        };
        Ok(Some((at, token)))
    }
}

/// Parses a JAAS configuration text into its login modules.
///
/// # Errors
/// When the text does not follow the grammar (the error gives a position, not the text).
pub fn parse(text: &str) -> Result<Vec<LoginModule>, JaasError> {
    let mut lexer = Lexer {
        chars: text.chars().enumerate().peekable(),
    };
    let end = text.chars().count() + 1;
    let mut modules = Vec::new();
    while let Some((at, token)) = lexer.next()? {
        let Token::Word(class) = token else {
            return Err(JaasError::Syntax {
                expected: "a login module class name",
                at,
            });
        };
        let flag = match lexer.next()? {
            Some((_, Token::Word(f)))
                if ["required", "requisite", "sufficient", "optional"]
                    .contains(&f.to_ascii_lowercase().as_str()) =>
            {
                f.to_ascii_lowercase()
            }
            Some((at, _)) => {
                return Err(JaasError::Syntax {
                    expected: "a control flag (required, requisite, sufficient or optional)",
                    at,
                })
            }
            None => {
                return Err(JaasError::Syntax {
                    expected: "a control flag (required, requisite, sufficient or optional)",
                    at: end,
                })
            }
        };
        let mut options = BTreeMap::new();
        loop {
            match lexer.next()? {
                Some((_, Token::Semicolon)) => break,
                Some((_, Token::Word(key))) => {
                    match lexer.next()? {
                        Some((_, Token::Equals)) => {}
                        Some((at, _)) => {
                            return Err(JaasError::Syntax {
                                expected: "'='",
                                at,
                            })
                        }
                        None => {
                            return Err(JaasError::Syntax {
                                expected: "'='",
                                at: end,
                            })
                        }
                    }
                    let value = match lexer.next()? {
                        Some((_, Token::Word(v) | Token::Quoted(v))) => v,
                        Some((at, _)) => {
                            return Err(JaasError::Syntax {
                                expected: "an option value",
                                at,
                            })
                        }
                        None => {
                            return Err(JaasError::Syntax {
                                expected: "an option value",
                                at: end,
                            })
                        }
                    };
                    options.insert(key, value);
                }
                Some((at, _)) => {
                    return Err(JaasError::Syntax {
                        expected: "an option name or ';'",
                        at,
                    })
                }
                None => {
                    return Err(JaasError::Syntax {
                        expected: "';' after the login module",
                        at: end,
                    })
                }
            }
        }
        modules.push(LoginModule {
            class,
            flag,
            options,
        });
    }
    Ok(modules)
}

/// The single login module of a client's `sasl.jaas.config`.
///
/// # Errors
/// Bad syntax, or not exactly one module.
pub fn single_module(text: &str) -> Result<LoginModule, JaasError> {
    let mut modules = parse(text)?;
    if modules.len() == 1 {
        Ok(modules.remove(0))
    } else {
        Err(JaasError::ModuleCount(modules.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_scram_modules_with_quoted_and_bare_values() {
        let m = single_module(
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             username=\"alice\" password=\"s3cr;et \\\"q\\\"\";",
        )
        .unwrap();
        assert_eq!(
            m.class,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(m.flag, "required");
        assert_eq!(m.options["username"], "alice");
        assert_eq!(m.options["password"], "s3cr;et \"q\"");

        let m = single_module(
            "org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED\n  username=bob\n  password=pw ;",
        )
        .unwrap();
        assert_eq!(m.flag, "required");
        assert_eq!(m.options["username"], "bob");
        assert_eq!(m.options["password"], "pw");
    }

    #[test]
    fn errors_give_positions_never_the_text() {
        let secret = "hunter2";
        for text in [
            format!("Module required password=\"{secret}"),
            format!("Module required password={secret}"),
            format!("Module maybe password={secret};"),
            format!("Module required password {secret};"),
            "= required;".to_owned(),
        ] {
            let e = parse(&text).unwrap_err().to_string();
            assert!(!e.contains(secret), "{e}");
            assert!(e.contains("at character"), "{e}");
        }
        assert_eq!(
            single_module("A required; B required;").unwrap_err(),
            JaasError::ModuleCount(2)
        );
        assert_eq!(single_module("  ").unwrap_err(), JaasError::ModuleCount(0));
    }
}
