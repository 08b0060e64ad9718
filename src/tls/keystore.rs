//! Loading keystores (private key + certificate chain) and truststores (certificates) from
//! Kafka's `ssl.*` keys, with Kafka's rules for which keys go together.

use connect_api::ConfigMap;
use openssl::pkcs12::Pkcs12;
use openssl::pkey::{PKey, Private};
use openssl::x509::X509;

use super::error::TlsError;
use super::{
    KEYSTORE_CERTIFICATE_CHAIN, KEYSTORE_KEY, KEYSTORE_LOCATION, KEYSTORE_PASSWORD, KEYSTORE_TYPE,
    KEY_PASSWORD, TRUSTSTORE_CERTIFICATES, TRUSTSTORE_LOCATION, TRUSTSTORE_PASSWORD,
    TRUSTSTORE_TYPE,
};

/// A private key with its certificate and the rest of its chain (issuers, leaf first).
pub struct KeyMaterial {
    /// The private key (a secret: never log it).
    pub key: PKey<Private>,
    /// The certificate of `key`.
    pub certificate: X509,
    /// The issuers of `certificate`, nearest first (may be empty).
    pub chain: Vec<X509>,
}

impl std::fmt::Debug for KeyMaterial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyMaterial")
            .field("certificate", &self.certificate.subject_name())
            .field("chain", &self.chain.len())
            .finish_non_exhaustive()
    }
}

impl KeyMaterial {
    /// The certificate followed by its chain, as PEM (librdkafka's `ssl.certificate.pem`).
    ///
    /// # Errors
    /// OpenSSL cannot encode a certificate (not expected for loaded certificates).
    pub fn certificate_chain_pem(&self) -> Result<String, TlsError> {
        let mut all = vec![self.certificate.clone()];
        all.extend(self.chain.iter().cloned());
        certificates_pem(&all)
    }

    /// The private key as unencrypted PKCS#8 PEM (librdkafka's `ssl.key.pem`). A secret: hand
    /// it to the client and never log it.
    ///
    /// # Errors
    /// OpenSSL cannot encode the key (not expected for a loaded key).
    pub fn private_key_pem(&self) -> Result<String, TlsError> {
        let pem = self
            .key
            .private_key_to_pem_pkcs8()
            .map_err(|e| invalid("private key", format!("cannot encode it as PEM: {e}")))?;
        String::from_utf8(pem).map_err(|_| invalid("private key", "PEM is not text".to_owned()))
    }
}

/// Certificates as concatenated PEM blocks (librdkafka's `ssl.ca.pem`).
///
/// # Errors
/// OpenSSL cannot encode a certificate (not expected for loaded certificates).
pub fn certificates_pem(certificates: &[X509]) -> Result<String, TlsError> {
    let mut out = String::new();
    for cert in certificates {
        let pem = cert
            .to_pem()
            .map_err(|e| invalid("certificate", format!("cannot encode it as PEM: {e}")))?;
        out.push_str(&String::from_utf8_lossy(&pem));
    }
    Ok(out)
}

/// The keystore that `ssl` (keys without `prefix`; `prefix` only names them in errors)
/// describes, or `None` when none is configured. As Kafka: `ssl.keystore.type` is `PKCS12`,
/// `JKS` (the default; a PKCS12 file is accepted as Java accepts it) or `PEM`; a PKCS12 file
/// needs `ssl.keystore.password`; a PEM file or the inline `ssl.keystore.certificate.chain` +
/// `ssl.keystore.key` may have an encrypted key opened with `ssl.key.password`, and take no
/// keystore password.
///
/// # Errors
/// Missing or contradicting keys, an unreadable or Java KeyStore file, a wrong password, no
/// key or certificate, or a key that does not match its certificate.
pub fn load_keystore(ssl: &ConfigMap, prefix: &str) -> Result<Option<KeyMaterial>, TlsError> {
    let get = |k: &str| ssl.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    let name = |k: &str| format!("{prefix}{k}");
    let store_type = get(KEYSTORE_TYPE).unwrap_or("JKS").to_ascii_uppercase();
    let location = get(KEYSTORE_LOCATION);
    let password = ssl.get(KEYSTORE_PASSWORD).filter(|p| !p.is_empty());
    let key_password = ssl.get(KEY_PASSWORD).filter(|p| !p.is_empty());
    let inline_key = get(KEYSTORE_KEY);
    let inline_chain = get(KEYSTORE_CERTIFICATE_CHAIN);
    let pem = store_type == "PEM";

    if inline_key.is_some() || inline_chain.is_some() {
        let (Some(key), Some(chain)) = (inline_key, inline_chain) else {
            let missing = if inline_key.is_none() {
                KEYSTORE_KEY
            } else {
                KEYSTORE_CERTIFICATE_CHAIN
            };
            return Err(invalid(
                &name(missing),
                format!(
                    "must be set together with {}",
                    name(if missing == KEYSTORE_KEY {
                        KEYSTORE_CERTIFICATE_CHAIN
                    } else {
                        KEYSTORE_KEY
                    })
                ),
            ));
        };
        if !pem {
            return Err(invalid(
                &name(KEYSTORE_KEY),
                format!(
                    "an inline private key needs {}=PEM, not {store_type}",
                    name(KEYSTORE_TYPE)
                ),
            ));
        }
        if location.is_some() {
            return Err(invalid(
                &name(KEYSTORE_LOCATION),
                format!("cannot be set together with {}", name(KEYSTORE_KEY)),
            ));
        }
        if password.is_some() {
            return Err(pem_store_password(&name(KEYSTORE_PASSWORD)));
        }
        return pem_key_material(
            chain.as_bytes(),
            key.as_bytes(),
            key_password,
            &name(KEYSTORE_CERTIFICATE_CHAIN),
            &name(KEYSTORE_KEY),
            &name(KEY_PASSWORD),
        )
        .map(Some);
    }

    let Some(path) = location else {
        if password.is_some() {
            return Err(invalid(
                &name(KEYSTORE_PASSWORD),
                format!("is set but {} is not", name(KEYSTORE_LOCATION)),
            ));
        }
        return Ok(None);
    };
    let location_key = name(KEYSTORE_LOCATION);
    let bytes = read(&location_key, path)?;
    refuse_java_keystore(&bytes, &location_key, path, &name(KEYSTORE_TYPE))?;
    let file_key = format!("{location_key}={path}");
    if pem {
        if password.is_some() {
            return Err(pem_store_password(&name(KEYSTORE_PASSWORD)));
        }
        return pem_key_material(
            &bytes,
            &bytes,
            key_password,
            &file_key,
            &file_key,
            &name(KEY_PASSWORD),
        )
        .map(Some);
    }
    expect_binary(&bytes, &file_key, &name(KEYSTORE_TYPE))?;
    let Some(password) = password else {
        return Err(invalid(
            &name(KEYSTORE_PASSWORD),
            format!("is required to open {location_key}={path}"),
        ));
    };
    // Java keeps one password for the store and one for the key; OpenSSL opens both with
    // one. Try the store's, then the key's.
    let mut parsed = parse_pkcs12(&bytes, password);
    if parsed.is_none() {
        if let Some(kp) = key_password.filter(|kp| *kp != password) {
            parsed = parse_pkcs12(&bytes, kp);
        }
    }
    let Some(parsed) = parsed else {
        return Err(TlsError::Pkcs12 {
            key: location_key,
            path: path.to_owned(),
            password_key: name(KEYSTORE_PASSWORD),
        });
    };
    let (Some(key), Some(certificate)) = (parsed.pkey, parsed.cert) else {
        return Err(invalid(
            &file_key,
            "holds no private key with its certificate (is it a truststore?)".to_owned(),
        ));
    };
    let chain: Vec<X509> = parsed
        .ca
        .map(|s| s.into_iter().collect())
        .unwrap_or_default();
    check_pair(&key, &certificate, &file_key)?;
    Ok(Some(KeyMaterial {
        key,
        certificate,
        chain,
    }))
}

/// The trusted certificates that `ssl` (keys without `prefix`) describes, or `None` when no
/// truststore is configured: `ssl.truststore.location` (PKCS12, `JKS` type with a PKCS12 file,
/// or PEM) or the inline `ssl.truststore.certificates` (type PEM).
///
/// # Errors
/// Contradicting keys, an unreadable or Java KeyStore file, a wrong password, or no
/// certificate in it.
pub fn load_truststore(ssl: &ConfigMap, prefix: &str) -> Result<Option<Vec<X509>>, TlsError> {
    let get = |k: &str| ssl.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
    let name = |k: &str| format!("{prefix}{k}");
    let store_type = get(TRUSTSTORE_TYPE).unwrap_or("JKS").to_ascii_uppercase();
    let pem = store_type == "PEM";
    let location = get(TRUSTSTORE_LOCATION);
    let password = ssl.get(TRUSTSTORE_PASSWORD).filter(|p| !p.is_empty());
    let no_password_for_pem = || {
        invalid(
            &name(TRUSTSTORE_PASSWORD),
            "cannot be set for a PEM truststore".to_owned(),
        )
    };

    let (certs, source) = if let Some(inline) = get(TRUSTSTORE_CERTIFICATES) {
        if !pem {
            return Err(invalid(
                &name(TRUSTSTORE_CERTIFICATES),
                format!(
                    "inline certificates need {}=PEM, not {store_type}",
                    name(TRUSTSTORE_TYPE)
                ),
            ));
        }
        if location.is_some() {
            return Err(invalid(
                &name(TRUSTSTORE_LOCATION),
                format!(
                    "cannot be set together with {}",
                    name(TRUSTSTORE_CERTIFICATES)
                ),
            ));
        }
        if password.is_some() {
            return Err(no_password_for_pem());
        }
        let source = name(TRUSTSTORE_CERTIFICATES);
        (pem_certificates(inline.as_bytes(), &source)?, source)
    } else if let Some(path) = location {
        let location_key = name(TRUSTSTORE_LOCATION);
        let bytes = read(&location_key, path)?;
        refuse_java_keystore(&bytes, &location_key, path, &name(TRUSTSTORE_TYPE))?;
        let source = format!("{location_key}={path}");
        if pem {
            if password.is_some() {
                return Err(no_password_for_pem());
            }
            (pem_certificates(&bytes, &source)?, source)
        } else {
            expect_binary(&bytes, &source, &name(TRUSTSTORE_TYPE))?;
            let Some(parsed) = parse_pkcs12(&bytes, password.map_or("", String::as_str)) else {
                return Err(TlsError::Pkcs12 {
                    key: location_key,
                    path: path.to_owned(),
                    password_key: name(TRUSTSTORE_PASSWORD),
                });
            };
            let mut certs: Vec<X509> = parsed.cert.into_iter().collect();
            certs.extend(parsed.ca.into_iter().flatten());
            (certs, source)
        }
    } else {
        if password.is_some() {
            return Err(invalid(
                &name(TRUSTSTORE_PASSWORD),
                format!("is set but {} is not", name(TRUSTSTORE_LOCATION)),
            ));
        }
        return Ok(None);
    };
    if certs.is_empty() {
        return Err(invalid(&source, "holds no certificate".to_owned()));
    }
    Ok(Some(certs))
}

fn invalid(key: &str, message: String) -> TlsError {
    TlsError::Invalid {
        key: key.to_owned(),
        message,
    }
}

fn pem_store_password(key: &str) -> TlsError {
    invalid(
        key,
        "cannot be set for a PEM keystore; only the key password (ssl.key.password) may be set"
            .to_owned(),
    )
}

fn read(key: &str, path: &str) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        key: key.to_owned(),
        path: path.to_owned(),
        source,
    })
}

/// JKS files start with `FEEDFEED`, JCEKS files with `CECECECE`.
fn refuse_java_keystore(
    bytes: &[u8],
    key: &str,
    path: &str,
    type_key: &str,
) -> Result<(), TlsError> {
    let format = match bytes.get(..4) {
        Some([0xFE, 0xED, 0xFE, 0xED]) => "JKS",
        Some([0xCE, 0xCE, 0xCE, 0xCE]) => "JCEKS",
        _ => return Ok(()),
    };
    Err(TlsError::JavaKeyStore {
        key: key.to_owned(),
        path: path.to_owned(),
        format,
        type_key: type_key.to_owned(),
    })
}

/// A PEM file given with a PKCS12/JKS type: say which type to set.
fn expect_binary(bytes: &[u8], source: &str, type_key: &str) -> Result<(), TlsError> {
    if bytes.trim_ascii_start().starts_with(b"-----BEGIN") {
        return Err(invalid(
            source,
            format!("is a PEM file; set {type_key}=PEM"),
        ));
    }
    Ok(())
}

fn parse_pkcs12(bytes: &[u8], password: &str) -> Option<openssl::pkcs12::ParsedPkcs12_2> {
    Pkcs12::from_der(bytes).ok()?.parse2(password).ok()
}

fn pem_certificates(pem: &[u8], source: &str) -> Result<Vec<X509>, TlsError> {
    X509::stack_from_pem(pem)
        .map_err(|e| invalid(source, format!("is not valid PEM certificates: {e}")))
}

/// A PEM key and certificate chain (they may be the same text, as in a PEM keystore file).
fn pem_key_material(
    chain_pem: &[u8],
    key_pem: &[u8],
    key_password: Option<&String>,
    chain_source: &str,
    key_source: &str,
    key_password_key: &str,
) -> Result<KeyMaterial, TlsError> {
    let mut certs = pem_certificates(chain_pem, chain_source)?.into_iter();
    let Some(certificate) = certs.next() else {
        return Err(invalid(chain_source, "holds no certificate".to_owned()));
    };
    if !key_pem.windows(11).any(|w| w == b"PRIVATE KEY") {
        return Err(invalid(key_source, "holds no PEM private key".to_owned()));
    }
    // Always pass a passphrase: without one OpenSSL would prompt on the terminal for an
    // encrypted key.
    let passphrase = key_password.map_or(&b""[..], |p| p.as_bytes());
    let key = PKey::private_key_from_pem_passphrase(key_pem, passphrase).map_err(|_| {
        let why = if key_password.is_some() {
            format!("the private key does not open with {key_password_key}, or is damaged")
        } else {
            format!("the private key does not open: is it encrypted? then set {key_password_key}")
        };
        invalid(key_source, why)
    })?;
    check_pair(&key, &certificate, key_source)?;
    Ok(KeyMaterial {
        key,
        certificate,
        chain: certs.collect(),
    })
}

fn check_pair(key: &PKey<Private>, certificate: &X509, source: &str) -> Result<(), TlsError> {
    let matches = certificate
        .public_key()
        .map(|public| public.public_eq(key))
        .unwrap_or(false);
    if matches {
        Ok(())
    } else {
        Err(invalid(
            source,
            "the private key does not belong to the (first) certificate".to_owned(),
        ))
    }
}

#[cfg(test)]
#[path = "keystore_tests.rs"]
mod tests;
