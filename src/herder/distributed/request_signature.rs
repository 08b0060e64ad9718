//! Internal request signing (KIP-507): requests one worker sends another (task configurations
//! forwarded to the leader) carry an HMAC of their exact body under the cluster's session key,
//! in the headers Kafka Connect uses, and the receiving worker checks it.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;

/// The header holding the base64 MAC of the request body.
pub const SIGNATURE_HEADER: &str = "X-Connect-Authorization";
/// The header naming the MAC algorithm (a Java `Mac` name such as `HmacSHA256`).
pub const SIGNATURE_ALGORITHM_HEADER: &str = "X-Connect-Request-Signature-Algorithm";

/// A MAC algorithm, by its Java name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacAlgorithm {
    /// `HmacSHA1`.
    HmacSha1,
    /// `HmacSHA224`.
    HmacSha224,
    /// `HmacSHA256` (Kafka Connect's default).
    HmacSha256,
    /// `HmacSHA384`.
    HmacSha384,
    /// `HmacSHA512`.
    HmacSha512,
}

impl MacAlgorithm {
    /// The algorithm of a Java name (`HmacSHA256`, case-insensitive as Java's provider lookup).
    pub fn from_java_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "hmacsha1" => Some(Self::HmacSha1),
            "hmacsha224" => Some(Self::HmacSha224),
            "hmacsha256" => Some(Self::HmacSha256),
            "hmacsha384" => Some(Self::HmacSha384),
            "hmacsha512" => Some(Self::HmacSha512),
            _ => None,
        }
    }

    /// The Java name.
    pub fn java_name(self) -> &'static str {
        match self {
            Self::HmacSha1 => "HmacSHA1",
            Self::HmacSha224 => "HmacSHA224",
            Self::HmacSha256 => "HmacSHA256",
            Self::HmacSha384 => "HmacSHA384",
            Self::HmacSha512 => "HmacSHA512",
        }
    }

    /// The size in bytes of a key Java's `KeyGenerator` makes by default for this algorithm.
    pub fn default_key_bytes(self) -> usize {
        match self {
            Self::HmacSha1 | Self::HmacSha512 => 64,
            Self::HmacSha224 => 28,
            Self::HmacSha256 => 32,
            Self::HmacSha384 => 48,
        }
    }

    fn digest(self) -> MessageDigest {
        match self {
            Self::HmacSha1 => MessageDigest::sha1(),
            Self::HmacSha224 => MessageDigest::sha224(),
            Self::HmacSha256 => MessageDigest::sha256(),
            Self::HmacSha384 => MessageDigest::sha384(),
            Self::HmacSha512 => MessageDigest::sha512(),
        }
    }
}

/// A signing problem that is this worker's own (not the request's).
#[derive(Debug, thiserror::Error)]
#[error("could not compute an internal request signature: {0}")]
pub struct SigningError(#[from] openssl::error::ErrorStack);

/// The cluster's session key.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    /// The key bytes.
    pub key: Vec<u8>,
    /// The key's algorithm (`inter.worker.key.generation.algorithm`).
    pub algorithm: MacAlgorithm,
}

impl std::fmt::Debug for SigningKey {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({}, [hidden])", self.algorithm.java_name())
    }
}

impl SigningKey {
    /// A new random key: `size_bits` (`inter.worker.key.size`) or the algorithm's default size.
    ///
    /// # Errors
    /// When the random generator fails.
    pub fn generate(algorithm: MacAlgorithm, size_bits: Option<u32>) -> Result<Self, SigningError> {
        let bytes = size_bits.map_or(algorithm.default_key_bytes(), |b| (b as usize).div_ceil(8));
        let mut key = vec![0u8; bytes];
        openssl::rand::rand_bytes(&mut key)?;
        Ok(Self { key, algorithm })
    }
}

/// The MAC of `body` under `key` with `algorithm`.
///
/// # Errors
/// When OpenSSL fails.
pub fn mac(key: &[u8], algorithm: MacAlgorithm, body: &[u8]) -> Result<Vec<u8>, SigningError> {
    let pkey = PKey::hmac(key)?;
    let mut signer = Signer::new(algorithm.digest(), &pkey)?;
    signer.update(body)?;
    Ok(signer.sign_to_vec()?)
}

/// The two headers that sign `body` (`inter.worker.signature.algorithm` = `algorithm`).
///
/// # Errors
/// When OpenSSL fails.
pub fn signature_headers(
    key: &SigningKey,
    algorithm: MacAlgorithm,
    body: &[u8],
) -> Result<[(&'static str, String); 2], SigningError> {
    let signature = STANDARD.encode(mac(&key.key, algorithm, body)?);
    Ok([
        (SIGNATURE_HEADER, signature),
        (SIGNATURE_ALGORITHM_HEADER, algorithm.java_name().to_owned()),
    ])
}

/// Why an internal request was refused; [`Rejection::status`] is the HTTP status Kafka Connect
/// answers with, the `Display` text its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// A signature header is missing.
    #[error("Internal request missing required signature")]
    Missing,
    /// The algorithm header names no MAC algorithm.
    #[error("Algorithm {0} not available")]
    UnknownAlgorithm(String),
    /// The signature is not base64.
    #[error("Illegal base64 character in the request signature")]
    BadEncoding,
    /// The algorithm is not in `inter.worker.verification.algorithms`.
    #[error("This worker does not support the '{algorithm}' key signing algorithm used by other workers. This worker is currently configured to use: [{configured}]. Check that all workers' configuration files permit the same set of signature algorithms, and correct any misconfigured worker and restart it.")]
    UnsupportedAlgorithm {
        /// The request's algorithm.
        algorithm: String,
        /// `inter.worker.verification.algorithms`, joined with `, `.
        configured: String,
    },
    /// This worker has not read a session key yet.
    #[error("This worker has not yet read the cluster's session key; retry the request")]
    NoSigningKey,
    /// The MAC does not match.
    #[error("Internal request contained invalid signature.")]
    Invalid,
}

impl Rejection {
    /// The HTTP status of the refusal.
    pub fn status(&self) -> u16 {
        match self {
            Self::Invalid => 403,
            Self::NoSigningKey => 503,
            _ => 400,
        }
    }
}

/// Checks the signature headers of an internal request (the values of
/// [`SIGNATURE_ALGORITHM_HEADER`] and [`SIGNATURE_HEADER`], if present) against `body`, the
/// session key and the accepted algorithms (`inter.worker.verification.algorithms`).
///
/// # Errors
/// The [`Rejection`] to answer with.
pub fn verify(
    algorithm_header: Option<&str>,
    signature_header: Option<&str>,
    body: &[u8],
    key: Option<&SigningKey>,
    accepted: &[String],
) -> Result<(), Rejection> {
    let (Some(name), Some(encoded)) = (algorithm_header, signature_header) else {
        return Err(Rejection::Missing);
    };
    let algorithm = MacAlgorithm::from_java_name(name)
        .ok_or_else(|| Rejection::UnknownAlgorithm(name.to_owned()))?;
    let signature = STANDARD
        .decode(encoded.trim())
        .map_err(|_| Rejection::BadEncoding)?;
    if !accepted.iter().any(|a| a == algorithm.java_name()) {
        return Err(Rejection::UnsupportedAlgorithm {
            algorithm: algorithm.java_name().to_owned(),
            configured: accepted.join(", "),
        });
    }
    let key = key.ok_or(Rejection::NoSigningKey)?;
    let expected = mac(&key.key, algorithm, body).map_err(|_| Rejection::Invalid)?;
    if expected.len() == signature.len() && openssl::memcmp::eq(&expected, &signature) {
        Ok(())
    } else {
        Err(Rejection::Invalid)
    }
}

#[cfg(test)]
mod tests;
