//! JDBC URLs, read as the JDBC drivers read them: `jdbc:postgresql://host:5432/db?user=u`,
//! `jdbc:postgresql:db`, `jdbc:mysql://host:3306/db`, `jdbc:mariadb://host/db`,
//! `jdbc:sqlite:/path/file.db`, `jdbc:sqlite::memory:`. A URL property connect-rs does not
//! apply is refused, never ignored.

use std::path::PathBuf;

use thiserror::Error;

use crate::dialect::Dialect;

/// Where a [`ConnectionSpec`] connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A database server (PostgreSQL, MySQL/MariaDB).
    Server {
        /// Host name or address.
        host: String,
        /// TCP port.
        port: u16,
        /// Database name; `None` for the server's default.
        database: Option<String>,
    },
    /// An SQLite database file.
    SqliteFile(PathBuf),
    /// An SQLite database in memory (`jdbc:sqlite::memory:`), private to one connection.
    SqliteMemory,
}

/// A parsed JDBC URL plus the credentials to use.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectionSpec {
    /// The database family.
    pub dialect: Dialect,
    /// Where to connect.
    pub target: Target,
    /// User name (the URL's `user`, else `connection.user`).
    pub user: Option<String>,
    /// Password (the URL's `password`, else `connection.password`).
    pub password: Option<String>,
}

impl std::fmt::Debug for ConnectionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionSpec")
            .field("dialect", &self.dialect)
            .field("target", &self.target)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "[hidden]"))
            .finish()
    }
}

/// A JDBC URL that connect-rs cannot use.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("connection.url {url:?}: {problem}")]
pub struct UrlError {
    /// The URL, with any password hidden.
    pub url: String,
    /// What is wrong and what was expected.
    pub problem: String,
}

/// The URL properties applied (everything else is refused).
const KNOWN_PROPERTIES: &[&str] = &["user", "password"];

impl ConnectionSpec {
    /// Reads `url`; `user` and `password` (`connection.user`, `connection.password`) apply
    /// when the URL has none, as the JDBC drivers let URL properties win.
    ///
    /// # Errors
    /// When the URL is not `jdbc:<subprotocol>:<rest>` of a supported database, or has a
    /// property, host or port that cannot be used.
    pub fn parse(url: &str, user: Option<&str>, password: Option<&str>) -> Result<Self, UrlError> {
        let fail = |problem: String| UrlError {
            url: hide_password(url),
            problem,
        };
        let rest = url.strip_prefix("jdbc:").ok_or_else(|| {
            fail("expected a JDBC URL starting with \"jdbc:\" (e.g. jdbc:postgresql://localhost:5432/db)".into())
        })?;
        let (sub, rest) = rest
            .split_once(':')
            .ok_or_else(|| fail("expected jdbc:<subprotocol>:<database>".into()))?;
        let dialect = match sub.to_ascii_lowercase().as_str() {
            "postgresql" => Dialect::Postgres,
            "mysql" | "mariadb" => Dialect::MySql,
            "sqlite" => Dialect::Sqlite,
            other => {
                return Err(fail(format!(
                    "the database {other:?} is not supported; expected jdbc:postgresql:, jdbc:mysql:, jdbc:mariadb: or jdbc:sqlite:"
                )))
            }
        };
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let mut url_user = None;
        let mut url_password = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = percent_decode(v).map_err(|e| {
                if is_password_property(k) {
                    fail(format!(
                        "property {k}: a %-escape is not valid (the value is not shown)"
                    ))
                } else {
                    fail(format!("property {k}: {e}"))
                }
            })?;
            match k {
                "user" => url_user = Some(v),
                "password" => url_password = Some(v),
                other => {
                    return Err(fail(format!(
                        "the URL property {other:?} is not supported by connect-rs (supported: {})",
                        KNOWN_PROPERTIES.join(", ")
                    )))
                }
            }
        }
        let target = match dialect {
            Dialect::Sqlite => sqlite_target(location).map_err(fail)?,
            Dialect::Postgres => server_target(location, 5432).map_err(fail)?,
            Dialect::MySql => server_target(location, 3306).map_err(fail)?,
        };
        Ok(Self {
            dialect,
            target,
            user: url_user.or_else(|| user.map(str::to_owned)),
            password: url_password.or_else(|| password.map(str::to_owned)),
        })
    }
}

/// `//host[:port][/database]` or a bare database name (`jdbc:postgresql:db`).
fn server_target(location: &str, default_port: u16) -> Result<Target, String> {
    let Some(authority_path) = location.strip_prefix("//") else {
        if location.is_empty() || location.contains('/') {
            return Err("expected //host[:port]/database or a database name".into());
        }
        return Ok(Target::Server {
            host: "localhost".into(),
            port: default_port,
            database: Some(location.to_owned()),
        });
    };
    let (authority, path) = authority_path
        .split_once('/')
        .unwrap_or((authority_path, ""));
    if authority.contains(',') {
        return Err("several hosts (failover lists) are not supported; give one host".into());
    }
    if authority.contains('@') {
        return Err("user@host is not a JDBC form; give user= and password= as properties or connection.user / connection.password".into());
    }
    let (host, port) = split_host_port(authority, default_port)?;
    let database = (!path.is_empty()).then(|| path.to_owned());
    Ok(Target::Server {
        host,
        port,
        database,
    })
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`; an empty host is `localhost`.
fn split_host_port(authority: &str, default_port: u16) -> Result<(String, u16), String> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("IPv6 host {authority:?} lacks its closing ']'"))?;
        (h, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| format!("port {p:?} is not a number from 0 to 65535"))?,
        None => default_port,
    };
    let host = if host.is_empty() { "localhost" } else { host };
    Ok((host.to_owned(), port))
}

/// `path`, `file:path`, `:memory:` (as sqlite-jdbc).
fn sqlite_target(location: &str) -> Result<Target, String> {
    if location == ":memory:" || location.is_empty() {
        return Ok(Target::SqliteMemory);
    }
    let path = location.strip_prefix("file:").unwrap_or(location);
    if path.starts_with(":resource:") {
        return Err("SQLite databases in class path resources are not supported".into());
    }
    Ok(Target::SqliteFile(PathBuf::from(path)))
}

/// `%XX` escapes decoded; `+` kept (JDBC URLs are not form-encoded).
fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad %-escape at {:?}", &s[i..]))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "%-escapes are not UTF-8".to_owned())
}

/// `url` as it may be quoted in a message or log line, every password in it replaced by
/// `[hidden]`: the value of every property whose name ends in `password` (any case:
/// `password=`, `sslpassword=`, `PASSWORD=`, separated by `?`, `&`, `;`, `,` or `(` as the
/// JDBC drivers write them) and the password of credentials before an `@` (`//user:pw@host`,
/// Oracle's `user/pw@host`). The one function every quoted `connection.url` goes through.
pub fn hide_password(url: &str) -> String {
    hide_property_passwords(&hide_userinfo_password(url))
}

/// `//user:pw@host` → `//user:[hidden]@host`; `thin:user/pw@host` → `thin:user/[hidden]@host`.
fn hide_userinfo_password(url: &str) -> String {
    let head_end = url.find('?').unwrap_or(url.len());
    let Some(at) = url[..head_end].rfind('@') else {
        return url.to_owned();
    };
    let before = &url[..at];
    // The credentials start after the `//` of the authority, else after the last `:`.
    let start = before
        .find("//")
        .map(|i| i + 2)
        .or_else(|| before.rfind(':').map(|i| i + 1))
        .unwrap_or(0);
    let credentials = &before[start..];
    let Some(separator) = credentials.find([':', '/']) else {
        return url.to_owned();
    };
    format!("{}[hidden]{}", &url[..start + separator + 1], &url[at..])
}

/// Every `…password=value` property's value (up to the next `&`, `;`, `,` or `)`) hidden.
fn hide_property_passwords(url: &str) -> String {
    // ASCII lower-casing keeps every byte offset.
    let lower = url.to_ascii_lowercase();
    let mut out = String::with_capacity(url.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find("password=") {
        let value_start = from + found + "password=".len();
        let value_end = url[value_start..]
            .find(['&', ';', ',', ')'])
            .map_or(url.len(), |i| value_start + i);
        out.push_str(&url[copied..value_start]);
        out.push_str("[hidden]");
        copied = value_end;
        from = value_end;
    }
    out.push_str(&url[copied..]);
    out
}

/// Whether the URL property `name` holds a password (its value is never quoted).
fn is_password_property(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with("password")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<ConnectionSpec, UrlError> {
        ConnectionSpec::parse(url, Some("key-user"), Some("key-pw"))
    }

    #[test]
    fn reads_postgres_urls() {
        let s = parse("jdbc:postgresql://db.example:6543/shop?user=u&password=p%26q").unwrap();
        assert_eq!(s.dialect, Dialect::Postgres);
        assert_eq!(
            s.target,
            Target::Server {
                host: "db.example".into(),
                port: 6543,
                database: Some("shop".into())
            }
        );
        assert_eq!(s.user.as_deref(), Some("u"));
        assert_eq!(s.password.as_deref(), Some("p&q"));
        let s = parse("jdbc:postgresql:shop").unwrap();
        assert_eq!(
            s.target,
            Target::Server {
                host: "localhost".into(),
                port: 5432,
                database: Some("shop".into())
            }
        );
        assert_eq!(s.user.as_deref(), Some("key-user"));
        assert_eq!(s.password.as_deref(), Some("key-pw"));
    }

    #[test]
    fn reads_mysql_and_mariadb_urls() {
        for sub in ["mysql", "mariadb", "MariaDB"] {
            let s = parse(&format!("jdbc:{sub}://127.0.0.1/app")).unwrap();
            assert_eq!(s.dialect, Dialect::MySql);
            assert_eq!(
                s.target,
                Target::Server {
                    host: "127.0.0.1".into(),
                    port: 3306,
                    database: Some("app".into())
                }
            );
        }
        let s = parse("jdbc:mysql://[::1]:3307/").unwrap();
        assert_eq!(
            s.target,
            Target::Server {
                host: "::1".into(),
                port: 3307,
                database: None
            }
        );
    }

    #[test]
    fn reads_sqlite_urls() {
        let s = parse("jdbc:sqlite:/var/data/app.db").unwrap();
        assert_eq!(s.target, Target::SqliteFile("/var/data/app.db".into()));
        let s = parse("jdbc:sqlite:test.db").unwrap();
        assert_eq!(s.target, Target::SqliteFile("test.db".into()));
        assert_eq!(
            parse("jdbc:sqlite::memory:").unwrap().target,
            Target::SqliteMemory
        );
    }

    #[test]
    fn every_password_of_a_url_is_hidden() {
        for (url, shown) in [
            (
                "jdbc:mysql://alice:S3cret@db.example:3306/app",
                "jdbc:mysql://alice:[hidden]@db.example:3306/app",
            ),
            (
                "jdbc:postgresql://bob:p@ss/w@h/db?user=x",
                "jdbc:postgresql://bob:[hidden]@h/db?user=x",
            ),
            (
                "jdbc:postgresql://h/db?user=x&password=S3cret&sslmode=require",
                "jdbc:postgresql://h/db?user=x&password=[hidden]&sslmode=require",
            ),
            (
                "jdbc:postgresql://h/db?PASSWORD=S3cret&sslpassword=K3y",
                "jdbc:postgresql://h/db?PASSWORD=[hidden]&sslpassword=[hidden]",
            ),
            (
                "jdbc:sqlserver://h:1433;user=sa;password=S3cret;database=x",
                "jdbc:sqlserver://h:1433;user=sa;password=[hidden];database=x",
            ),
            (
                "jdbc:mysql://(host=h,user=u,password=S3cret)/db",
                "jdbc:mysql://(host=h,user=u,password=[hidden])/db",
            ),
            (
                "jdbc:oracle:thin:scott/S3cret@//h:1521/svc",
                "jdbc:oracle:thin:scott/[hidden]@//h:1521/svc",
            ),
            ("jdbc:mysql://alice@h/db", "jdbc:mysql://alice@h/db"),
            (
                "jdbc:sqlite:/var/data/app.db",
                "jdbc:sqlite:/var/data/app.db",
            ),
        ] {
            assert_eq!(hide_password(url), shown, "{url}");
        }
    }

    #[test]
    fn errors_never_quote_a_password() {
        for url in [
            "jdbc:mysql://alice:S3cret@db.example/app",
            "jdbc:oracle:thin:scott/S3cret@h:1521:x",
            "jdbc:sqlserver://h;password=S3cret",
            "jdbc:postgresql://h/db?password=S3cret%zz",
            "jdbc:postgresql://h/db?password=S3cret&bad",
        ] {
            let e = parse(url).unwrap_err().to_string();
            assert!(!e.contains("S3cret"), "{e}");
        }
        let e = parse("jdbc:mysql://alice:S3cret@db.example/app").unwrap_err();
        assert_eq!(e.url, "jdbc:mysql://alice:[hidden]@db.example/app");
    }

    #[test]
    fn refuses_what_it_cannot_apply_naming_the_url_without_its_password() {
        let e = parse("jdbc:postgresql://h/db?password=s3cret&sslmode=require").unwrap_err();
        assert_eq!(
            e.url,
            "jdbc:postgresql://h/db?password=[hidden]&sslmode=require"
        );
        assert!(e.problem.contains("\"sslmode\" is not supported"), "{e}");
        assert!(!e.to_string().contains("s3cret"));
        let e = parse("jdbc:oracle:thin:@h:1521:x").unwrap_err();
        assert!(e.problem.contains("\"oracle\" is not supported"), "{e}");
        let e = parse("postgresql://h/db").unwrap_err();
        assert!(e.problem.contains("starting with \"jdbc:\""), "{e}");
        let e = parse("jdbc:postgresql://h:99999/db").unwrap_err();
        assert!(e.problem.contains("port \"99999\""), "{e}");
        let e = parse("jdbc:mysql://a,b/db").unwrap_err();
        assert!(e.problem.contains("failover"), "{e}");
    }
}
