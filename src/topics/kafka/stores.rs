//! Java truststores and keystores (PKCS12 files, PEM files, inline PEM) read into the PEM text
//! librdkafka takes (`ssl.ca.pem`, `ssl.certificate.pem`, `ssl.key.pem`).
//!
//! Errors name the key and the file, never a password or key material.

use std::path::PathBuf;

use openssl::pkcs12::Pkcs12;
use openssl::pkey::{PKey, Private};
use openssl::x509::X509;

/// The `ssl.truststore.*` or `ssl.keystore.*` settings of one store.
#[derive(Debug, Clone, Default)]
pub struct StoreSpec {
    /// `ssl.truststore` or `ssl.keystore`.
    pub prefix: String,
    /// `<prefix>.location`.
    pub location: Option<PathBuf>,
    /// `<prefix>.password`.
    pub password: Option<String>,
    /// `<prefix>.type` (Java's default is JKS; the file's content decides between PKCS12 and JKS).
    pub store_type: Option<String>,
    /// `ssl.truststore.certificates`: inline PEM certificates.
    pub certificates: Option<String>,
    /// `ssl.keystore.certificate.chain`: inline PEM certificate chain.
    pub certificate_chain: Option<String>,
    /// `ssl.keystore.key`: inline PEM private key.
    pub key: Option<String>,
}

impl StoreSpec {
    /// Whether no setting of the store is given.
    pub fn is_empty(&self) -> bool {
        self.location.is_none()
            && self.certificates.is_none()
            && self.certificate_chain.is_none()
            && self.key.is_none()
    }

    fn key_name(&self, suffix: &str) -> String {
        format!("{}.{suffix}", self.prefix)
    }
}

/// A store that cannot be read, naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid value for '{key}': {reason}")]
pub struct StoreError {
    /// The key at fault.
    pub key: String,
    /// Why (never a secret).
    pub reason: String,
}

enum Format {
    Pkcs12(Vec<u8>),
    Pem(Vec<u8>),
}

const JKS_MAGIC: [u8; 4] = [0xFE, 0xED, 0xFE, 0xED];

fn read(spec: &StoreSpec) -> Result<Option<Format>, StoreError> {
    let Some(path) = &spec.location else {
        return Ok(None);
    };
    let key = spec.key_name("location");
    let bytes = std::fs::read(path).map_err(|e| StoreError {
        key: key.clone(),
        reason: format!("cannot read {}: {e}", path.display()),
    })?;
    if bytes.starts_with(&JKS_MAGIC) {
        let reason = format!(
            "{0} is a JKS store, which connect-rs cannot read; convert it to PKCS12 with \
             `keytool -importkeystore -srckeystore {0} -destkeystore {0}.p12 \
             -deststoretype PKCS12` and set {1}={0}.p12 and {2}=PKCS12",
            path.display(),
            key,
            spec.key_name("type"),
        );
        return Err(StoreError { key, reason });
    }
    let declared = spec
        .store_type
        .as_deref()
        .unwrap_or("JKS")
        .to_ascii_uppercase();
    let is_pem = bytes.trim_ascii_start().starts_with(b"-----BEGIN");
    match declared.as_str() {
        "PEM" if is_pem => Ok(Some(Format::Pem(bytes))),
        "PEM" => Err(StoreError {
            key: spec.key_name("type"),
            reason: format!("PEM was declared but {} holds no PEM text", path.display()),
        }),
        // Java reads PKCS12 files declared as JKS (keystore.type.compat), so does connect-rs.
        "PKCS12" | "JKS" if !is_pem => Ok(Some(Format::Pkcs12(bytes))),
        "PKCS12" | "JKS" => Err(StoreError {
            key: spec.key_name("type"),
            reason: format!(
                "{declared} was declared but {} holds PEM text; set {}=PEM",
                path.display(),
                spec.key_name("type")
            ),
        }),
        other => Err(StoreError {
            key: spec.key_name("type"),
            reason: format!("'{other}' is not one of JKS, PKCS12, PEM"),
        }),
    }
}

struct Pkcs12Contents {
    key: Option<PKey<Private>>,
    cert: Option<X509>,
    ca: Vec<X509>,
}

fn open_pkcs12(
    spec: &StoreSpec,
    der: &[u8],
    passwords: &[Option<&str>],
) -> Result<Pkcs12Contents, StoreError> {
    let path = spec
        .location
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let p12 = Pkcs12::from_der(der).map_err(|_| StoreError {
        key: spec.key_name("location"),
        reason: format!("{path} is not a PKCS12 store"),
    })?;
    for password in passwords {
        if let Ok(parsed) = p12.parse2(password.unwrap_or("")) {
            return Ok(Pkcs12Contents {
                key: parsed.pkey,
                cert: parsed.cert,
                ca: parsed
                    .ca
                    .map(|s| s.into_iter().collect())
                    .unwrap_or_default(),
            });
        }
    }
    Err(StoreError {
        key: spec.key_name("password"),
        reason: format!("cannot open {path}: wrong password or damaged store"),
    })
}

fn pem_certs(spec: &StoreSpec, key: &str, pem: &[u8]) -> Result<Vec<X509>, StoreError> {
    let certs = X509::stack_from_pem(pem).map_err(|_| StoreError {
        key: key.to_owned(),
        reason: "holds no readable PEM certificate".to_owned(),
    })?;
    if certs.is_empty() {
        return Err(StoreError {
            key: key.to_owned(),
            reason: format!("holds no PEM certificate ({})", spec.prefix),
        });
    }
    Ok(certs)
}

fn to_pem(certs: &[X509]) -> Result<String, StoreError> {
    let mut out = String::new();
    for c in certs {
        let pem = c.to_pem().map_err(|e| StoreError {
            key: String::new(),
            reason: e.to_string(),
        })?;
        out.push_str(&String::from_utf8_lossy(&pem));
    }
    Ok(out)
}

/// The trusted certificates of `spec` (a truststore) as PEM text.
///
/// # Errors
/// Unreadable files, JKS stores, wrong passwords, no certificate.
pub fn truststore_pem(spec: &StoreSpec) -> Result<String, StoreError> {
    let certs = match read(spec)? {
        Some(Format::Pem(bytes)) => pem_certs(spec, &spec.key_name("location"), &bytes)?,
        Some(Format::Pkcs12(der)) => {
            let contents = open_pkcs12(spec, &der, &[spec.password.as_deref(), None])?;
            let mut certs = contents.ca;
            certs.extend(contents.cert);
            if certs.is_empty() {
                return Err(StoreError {
                    key: spec.key_name("location"),
                    reason: "the truststore holds no certificate".to_owned(),
                });
            }
            certs
        }
        None => {
            let key = spec.key_name("certificates");
            let pem = spec.certificates.as_deref().unwrap_or_default();
            pem_certs(spec, &key, pem.as_bytes())?
        }
    };
    to_pem(&certs)
}

fn private_key_pem(key: &PKey<Private>) -> Result<String, StoreError> {
    key.private_key_to_pem_pkcs8()
        .map(|p| String::from_utf8_lossy(&p).into_owned())
        .map_err(|e| StoreError {
            key: String::new(),
            reason: e.to_string(),
        })
}

fn pem_private_key(
    key_name: &str,
    pem: &[u8],
    password: Option<&str>,
) -> Result<PKey<Private>, StoreError> {
    let parsed = match password {
        Some(p) => PKey::private_key_from_pem_passphrase(pem, p.as_bytes()),
        None => PKey::private_key_from_pem(pem),
    };
    parsed.map_err(|_| StoreError {
        key: key_name.to_owned(),
        reason: "holds no readable PEM private key (or ssl.key.password is wrong)".to_owned(),
    })
}

/// The private key and certificate chain of `spec` (a keystore) as PEM text (key unencrypted,
/// in memory only).
///
/// # Errors
/// Unreadable files, JKS stores, wrong passwords, no key or certificate.
pub fn keystore_pem(
    spec: &StoreSpec,
    key_password: Option<&str>,
) -> Result<(String, String), StoreError> {
    let (key, chain) = match read(spec)? {
        Some(Format::Pkcs12(der)) => {
            let contents = open_pkcs12(spec, &der, &[spec.password.as_deref(), key_password])?;
            let (Some(key), Some(cert)) = (contents.key, contents.cert) else {
                return Err(StoreError {
                    key: spec.key_name("location"),
                    reason: "the keystore holds no private key with its certificate".to_owned(),
                });
            };
            let mut chain = vec![cert];
            chain.extend(contents.ca);
            (key, chain)
        }
        Some(Format::Pem(bytes)) => {
            let name = spec.key_name("location");
            (
                pem_private_key(&name, &bytes, key_password)?,
                pem_certs(spec, &name, &bytes)?,
            )
        }
        None => {
            let key = pem_private_key(
                &spec.key_name("key"),
                spec.key.as_deref().unwrap_or_default().as_bytes(),
                key_password,
            )?;
            let chain_key = spec.key_name("certificate.chain");
            let chain = pem_certs(
                spec,
                &chain_key,
                spec.certificate_chain
                    .as_deref()
                    .unwrap_or_default()
                    .as_bytes(),
            )?;
            (key, chain)
        }
    };
    Ok((private_key_pem(&key)?, to_pem(&chain)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use openssl::asn1::Asn1Time;
    use openssl::hash::MessageDigest;
    use openssl::rsa::Rsa;
    use openssl::x509::X509NameBuilder;

    fn key_and_cert() -> (PKey<Private>, X509) {
        let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "stores-test").unwrap();
        let name = name.build();
        let mut b = X509::builder().unwrap();
        b.set_version(2).unwrap();
        b.set_subject_name(&name).unwrap();
        b.set_issuer_name(&name).unwrap();
        b.set_pubkey(&key).unwrap();
        b.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        b.set_not_after(&Asn1Time::days_from_now(1).unwrap())
            .unwrap();
        b.sign(&key, MessageDigest::sha256()).unwrap();
        (key, b.build())
    }

    fn spec(prefix: &str, location: &std::path::Path, password: Option<&str>) -> StoreSpec {
        StoreSpec {
            prefix: prefix.to_owned(),
            location: Some(location.to_owned()),
            password: password.map(str::to_owned),
            ..StoreSpec::default()
        }
    }

    #[test]
    fn pkcs12_keystores_and_pem_truststores_become_pem_text() {
        let dir = tempfile::tempdir().unwrap();
        let (key, cert) = key_and_cert();
        let p12 = Pkcs12::builder()
            .name("client")
            .pkey(&key)
            .cert(&cert)
            .build2("store-pw")
            .unwrap();
        let path = dir.path().join("client.p12");
        std::fs::write(&path, p12.to_der().unwrap()).unwrap();
        // Declared JKS (Java's default) but PKCS12 inside: read as Java does.
        let (key_pem, chain_pem) =
            keystore_pem(&spec("ssl.keystore", &path, Some("store-pw")), None).unwrap();
        assert!(
            key_pem.starts_with("-----BEGIN PRIVATE KEY-----"),
            "{key_pem}"
        );
        assert_eq!(
            X509::from_pem(chain_pem.as_bytes())
                .unwrap()
                .to_der()
                .unwrap(),
            cert.to_der().unwrap()
        );

        let wrong = keystore_pem(&spec("ssl.keystore", &path, Some("nope-pw")), None).unwrap_err();
        assert_eq!(wrong.key, "ssl.keystore.password");
        assert!(!wrong.to_string().contains("nope-pw"), "{wrong}");

        let pem = dir.path().join("ca.pem");
        std::fs::write(&pem, cert.to_pem().unwrap()).unwrap();
        let mut trust = spec("ssl.truststore", &pem, None);
        trust.store_type = Some("PEM".to_owned());
        assert_eq!(
            truststore_pem(&trust).unwrap(),
            String::from_utf8(cert.to_pem().unwrap()).unwrap()
        );
        trust.store_type = Some("PKCS12".to_owned());
        let e = truststore_pem(&trust).unwrap_err();
        assert_eq!(e.key, "ssl.truststore.type", "{e}");
    }

    #[test]
    fn jks_stores_are_refused_with_the_conversion_command() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trust.jks");
        std::fs::write(&path, [0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2]).unwrap();
        let e = truststore_pem(&spec("ssl.truststore", &path, Some("pw"))).unwrap_err();
        assert_eq!(e.key, "ssl.truststore.location");
        assert!(e.reason.contains("keytool -importkeystore"), "{e}");
    }
}
