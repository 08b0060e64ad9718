//! SASL authentication on a fresh connection (KIP-152): SaslHandshake, then SaslAuthenticate
//! rounds for PLAIN (one message) or SCRAM-SHA-256/512 (RFC 5802: client-first, client-final,
//! and the server's signature checked).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;

use crate::error::MembershipError;
use crate::security::{SaslCredentials, SaslMechanism};

/// The first client message of `creds`' mechanism and the state for the next round.
pub(crate) enum Exchange {
    /// PLAIN or OAUTHBEARER: a single message.
    Plain,
    /// SCRAM: waiting for the server-first message.
    Scram {
        digest: MessageDigest,
        client_first_bare: String,
        nonce: String,
    },
}

/// Starts an exchange: the first message to send.
pub(crate) fn start(creds: &SaslCredentials) -> Result<(Exchange, Vec<u8>), MembershipError> {
    match creds.mechanism {
        SaslMechanism::Plain => {
            let mut msg = Vec::with_capacity(creds.username.len() + creds.password.len() + 2);
            msg.push(0);
            msg.extend_from_slice(creds.username.as_bytes());
            msg.push(0);
            msg.extend_from_slice(creds.password.as_bytes());
            Ok((Exchange::Plain, msg))
        }
        SaslMechanism::OauthBearer => {
            let token = unsecured_token(
                &creds.username,
                creds.unsecured_jwt.as_ref().cloned().unwrap_or_default(),
            );
            // RFC 7628's client initial response, as Kafka's OAuthBearerSaslClient sends it.
            Ok((
                Exchange::Plain,
                format!("n,,\x01auth=Bearer {token}\x01\x01").into_bytes(),
            ))
        }
        SaslMechanism::ScramSha256 | SaslMechanism::ScramSha512 => {
            let mut raw = [0u8; 24];
            openssl::rand::rand_bytes(&mut raw).map_err(crypto)?;
            let nonce = B64.encode(raw);
            let client_first_bare = format!("n={},r={nonce}", scram_name(&creds.username));
            let digest = if creds.mechanism == SaslMechanism::ScramSha256 {
                MessageDigest::sha256()
            } else {
                MessageDigest::sha512()
            };
            let msg = format!("n,,{client_first_bare}").into_bytes();
            Ok((
                Exchange::Scram {
                    digest,
                    client_first_bare,
                    nonce,
                },
                msg,
            ))
        }
    }
}

/// SCRAM: the client-final message for the server-first message, and the server signature
/// expected in the server-final message.
pub(crate) fn scram_final(
    digest: MessageDigest,
    client_first_bare: &str,
    nonce: &str,
    server_first: &[u8],
    password: &str,
) -> Result<(Vec<u8>, Vec<u8>), MembershipError> {
    let server_first = std::str::from_utf8(server_first)
        .map_err(|_| auth("the SCRAM server-first message is not UTF-8".into()))?;
    let attr = |key: &str| {
        server_first
            .split(',')
            .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .ok_or_else(|| auth(format!("the SCRAM server-first message has no {key}=")))
    };
    let full_nonce = attr("r")?;
    if !full_nonce.starts_with(nonce) {
        return Err(auth(
            "the SCRAM server nonce does not extend the client's".into(),
        ));
    }
    let salt = B64
        .decode(attr("s")?)
        .map_err(|_| auth("the SCRAM salt is not base64".into()))?;
    let iterations: usize = attr("i")?
        .parse()
        .map_err(|_| auth("the SCRAM iteration count is not a number".into()))?;
    let mut salted = vec![0u8; digest.size()];
    openssl::pkcs5::pbkdf2_hmac(password.as_bytes(), &salt, iterations, digest, &mut salted)
        .map_err(crypto)?;
    let client_key = hmac(digest, &salted, b"Client Key")?;
    let stored_key = openssl::hash::hash(digest, &client_key).map_err(crypto)?;
    let without_proof = format!("c=biws,r={full_nonce}");
    let auth_message = format!("{client_first_bare},{server_first},{without_proof}");
    let signature = hmac(digest, &stored_key, auth_message.as_bytes())?;
    let proof: Vec<u8> = client_key
        .iter()
        .zip(signature.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    let server_key = hmac(digest, &salted, b"Server Key")?;
    let server_signature = hmac(digest, &server_key, auth_message.as_bytes())?;
    let msg = format!("{without_proof},p={}", B64.encode(proof)).into_bytes();
    Ok((msg, server_signature))
}

/// SCRAM: checks the server-final message against the expected signature.
pub(crate) fn scram_verify(server_final: &[u8], expected: &[u8]) -> Result<(), MembershipError> {
    let text = String::from_utf8_lossy(server_final);
    if let Some(e) = text.strip_prefix("e=") {
        return Err(auth(format!("SCRAM authentication failed: {e}")));
    }
    let v = text
        .strip_prefix("v=")
        .and_then(|v| B64.decode(v.trim()).ok())
        .ok_or_else(|| auth("the SCRAM server-final message has no signature".into()))?;
    if v.len() == expected.len() && openssl::memcmp::eq(&v, expected) {
        Ok(())
    } else {
        Err(auth("the broker's SCRAM signature is wrong".into()))
    }
}

fn scram_name(user: &str) -> String {
    user.replace('=', "=3D").replace(',', "=2C")
}

fn hmac(digest: MessageDigest, key: &[u8], data: &[u8]) -> Result<Vec<u8>, MembershipError> {
    let key = PKey::hmac(key).map_err(crypto)?;
    let mut signer = Signer::new(digest, &key).map_err(crypto)?;
    signer.update(data).map_err(crypto)?;
    signer.sign_to_vec().map_err(crypto)
}

fn crypto(e: openssl::error::ErrorStack) -> MembershipError {
    MembershipError::Auth(format!("SASL crypto: {e}"))
}

fn auth(msg: String) -> MembershipError {
    MembershipError::Auth(msg)
}

/// An unsecured JWS (`alg: none`, no signature) for `principal`, valid from now on for the
/// token's lifetime.
fn unsecured_token(principal: &str, claims: crate::security::UnsecuredJwt) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut payload = format!(
        "{{\"iat\":{now},\"exp\":{},{}:{}",
        now + claims.lifetime_seconds,
        json_string(&claims.principal_claim),
        json_string(principal)
    );
    if !claims.scope.is_empty() {
        let scope: Vec<String> = claims.scope.iter().map(|s| json_string(s)).collect();
        payload.push_str(&format!(",\"scope\":[{}]", scope.join(",")));
    }
    payload.push('}');
    format!(
        "{}.{}.",
        B64URL.encode(br#"{"alg":"none"}"#),
        B64URL.encode(payload)
    )
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's SCRAM-SHA-256 example (user "user", password "pencil").
    #[test]
    fn scram_sha_256_matches_rfc_7677() {
        let client_first_bare = "n=user,r=rOprNGfwEbeRWgbNEkqO";
        let server_first =
            b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        let (msg, server_sig) = scram_final(
            MessageDigest::sha256(),
            client_first_bare,
            "rOprNGfwEbeRWgbNEkqO",
            server_first,
            "pencil",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(msg).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
             p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        scram_verify(
            b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
            &server_sig,
        )
        .unwrap();
        assert!(scram_verify(b"v=AAAA", &server_sig).is_err());
    }

    #[test]
    fn plain_message_and_scram_names() {
        let creds = SaslCredentials {
            mechanism: SaslMechanism::Plain,
            username: "u".into(),
            password: "p".into(),
            unsecured_jwt: None,
        };
        assert_eq!(start(&creds).unwrap().1, b"\0u\0p");
        let oauth = SaslCredentials {
            mechanism: SaslMechanism::OauthBearer,
            username: "al\"ice".into(),
            password: String::new(),
            unsecured_jwt: Some(crate::security::UnsecuredJwt::default()),
        };
        let msg = String::from_utf8(start(&oauth).unwrap().1).unwrap();
        let token = msg
            .strip_prefix("n,,\x01auth=Bearer ")
            .and_then(|m| m.strip_suffix("\x01\x01"))
            .unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
        let payload = String::from_utf8(B64URL.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(B64URL.decode(parts[0]).unwrap(), br#"{"alg":"none"}"#);
        assert!(payload.contains(r#""sub":"al\"ice""#), "{payload}");
        assert_eq!(parts[2], "", "no signature");
        assert_eq!(scram_name("a=b,c"), "a=3Db=2Cc");
    }
}
