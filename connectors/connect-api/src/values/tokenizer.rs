//! Port of `Values.Parser`: the tokens `parseString` reads.

/// Java `String.trim()`: strips chars <= U+0020.
pub(super) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

pub(super) fn is_blank(s: &str) -> bool {
    java_trim(s).is_empty()
}

/// Port of `Values.Parser`: splits on unescaped `: , { } [ ] "`, keeping delimiters as tokens.
pub(super) struct Tokenizer<'a> {
    pub(super) original: &'a str,
    index: usize,
    next_token: Option<&'a str>,
    previous_token: Option<&'a str>,
}

impl<'a> Tokenizer<'a> {
    pub(super) fn new(original: &'a str) -> Self {
        Self {
            original,
            index: 0,
            next_token: None,
            previous_token: None,
        }
    }

    pub(super) fn position(&self) -> usize {
        self.index
    }

    pub(super) fn mark(&self) -> usize {
        self.index - self.next_token.map_or(0, str::len)
    }

    pub(super) fn rewind_to(&mut self, position: usize) {
        self.index = position;
        self.next_token = None;
        self.previous_token = None;
    }

    pub(super) fn can_consume_next_token(&self) -> bool {
        self.index < self.original.len()
    }

    pub(super) fn has_next(&self) -> bool {
        self.next_token.is_some() || self.can_consume_next_token()
    }

    pub(super) fn next(&mut self) -> &'a str {
        let t = match self.next_token.take() {
            Some(t) => t,
            None => self.consume_next_token(),
        };
        self.previous_token = Some(t);
        t
    }

    pub(super) fn next_n(&mut self, n: usize) -> Option<&'a str> {
        let current = self.mark();
        let start = self.mark();
        for _ in 0..n {
            if !self.has_next() {
                self.rewind_to(start);
                return None;
            }
            self.next();
        }
        self.original.get(current..self.position())
    }

    pub(super) fn consume_next_token(&mut self) -> &'a str {
        let bytes = self.original.as_bytes();
        let mut escaped = false;
        let start = self.index;
        while self.index < bytes.len() {
            match bytes[self.index] {
                b'\\' => escaped = !escaped,
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' => {
                    if !escaped {
                        if start < self.index {
                            return &self.original[start..self.index];
                        }
                        self.index += 1;
                        return &self.original[start..start + 1];
                    }
                    escaped = false;
                }
                _ => escaped = false,
            }
            self.index += 1;
        }
        &self.original[start..self.index]
    }

    pub(super) fn previous(&self) -> Option<&'a str> {
        self.previous_token
    }

    pub(super) fn is_next(&mut self, expected: &str) -> bool {
        if self.next_token.is_none() {
            if !self.has_next() {
                return false;
            }
            self.next_token = Some(self.consume_next_token());
        }
        while self.next_token.is_some_and(is_blank) && self.can_consume_next_token() {
            self.next_token = Some(self.consume_next_token());
        }
        self.next_token.is_some_and(|t| java_trim(t) == expected)
    }

    pub(super) fn can_consume(&mut self, expected: &str) -> bool {
        if self.is_next(expected) {
            self.next_token = None;
            true
        } else {
            false
        }
    }
}
