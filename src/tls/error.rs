//! Why a keystore or truststore could not be loaded. Messages name the key (with its prefix,
//! e.g. `listeners.https.ssl.keystore.location`) and the file, never a password.

/// A keystore or truststore that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file cannot be read.
    #[error("Could not read {key}={path}: {source}")]
    Read {
        /// The location key, with its prefix.
        key: String,
        /// The file.
        path: String,
        /// What the file system said.
        source: std::io::Error,
    },
    /// A Java KeyStore file (JKS or JCEKS), which OpenSSL cannot read.
    #[error(
        "{key}={path} is a Java KeyStore ({format}), which connect-rs cannot read. Convert it to \
         PKCS12 once with: keytool -importkeystore -srckeystore {path} -srcstoretype {format} \
         -destkeystore {path}.p12 -deststoretype PKCS12, then set {key}={path}.p12 and \
         {type_key}=PKCS12"
    )]
    JavaKeyStore {
        /// The location key, with its prefix.
        key: String,
        /// The file.
        path: String,
        /// `JKS` or `JCEKS`.
        format: &'static str,
        /// The matching type key, with its prefix.
        type_key: String,
    },
    /// A PKCS12 file that does not open with the given password (or is damaged).
    #[error(
        "Could not open the PKCS12 file {key}={path}: the password ({password_key}) is wrong, or \
         the file is damaged or uses legacy encryption (RC2/3DES from an old keytool; re-export \
         it with a current keytool or `openssl pkcs12 -legacy`)"
    )]
    Pkcs12 {
        /// The location key, with its prefix.
        key: String,
        /// The file.
        path: String,
        /// The password key that was tried, with its prefix.
        password_key: String,
    },
    /// A setting is missing, contradicts another or holds unusable content.
    #[error("{key}: {message}")]
    Invalid {
        /// The key at fault, with its prefix (and its file when it names one).
        key: String,
        /// What is wrong, without any secret.
        message: String,
    },
}
