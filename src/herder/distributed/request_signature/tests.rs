use super::*;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `verify` on the headers of a request.
fn check(
    headers: &[(&'static str, String)],
    body: &[u8],
    key: Option<&SigningKey>,
    accepted: &[String],
) -> Result<(), Rejection> {
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    verify(
        find(SIGNATURE_ALGORITHM_HEADER),
        find(SIGNATURE_HEADER),
        body,
        key,
        accepted,
    )
}

fn accepted() -> Vec<String> {
    vec!["HmacSHA256".to_owned()]
}

#[test]
fn the_mac_is_rfc_4231_hmac() {
    // RFC 4231, test case 2.
    let mac = mac(
        b"Jefe",
        MacAlgorithm::HmacSha256,
        b"what do ya want for nothing?",
    )
    .unwrap();
    assert_eq!(
        hex(&mac),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    let mac = mac_512();
    assert_eq!(&hex(&mac)[..32], "164b7a7bfcf819e2e395fbe73b56e0a3");
}

fn mac_512() -> Vec<u8> {
    mac(
        b"Jefe",
        MacAlgorithm::HmacSha512,
        b"what do ya want for nothing?",
    )
    .unwrap()
}

#[test]
fn a_signed_request_verifies_and_a_changed_body_does_not() {
    let key = SigningKey::generate(MacAlgorithm::HmacSha256, None).unwrap();
    assert_eq!(key.key.len(), 32);
    let body = br#"[{"task.class":"x"}]"#;
    let headers = signature_headers(&key, MacAlgorithm::HmacSha256, body)
        .unwrap()
        .to_vec();
    assert_eq!(
        headers[1],
        (SIGNATURE_ALGORITHM_HEADER, "HmacSHA256".to_owned())
    );
    assert_eq!(check(&headers, body, Some(&key), &accepted()), Ok(()));
    let changed = check(&headers, b"[]", Some(&key), &accepted()).unwrap_err();
    assert_eq!(changed, Rejection::Invalid);
    assert_eq!(changed.status(), 403);
    assert_eq!(
        changed.to_string(),
        "Internal request contained invalid signature."
    );
    let other = SigningKey::generate(MacAlgorithm::HmacSha256, Some(128)).unwrap();
    assert_eq!(other.key.len(), 16);
    assert_eq!(
        check(&headers, body, Some(&other), &accepted()),
        Err(Rejection::Invalid)
    );
}

#[test]
fn refusals_carry_kafka_connects_status_and_message() {
    let key = SigningKey::generate(MacAlgorithm::HmacSha256, None).unwrap();
    let missing = check(&[], b"", Some(&key), &accepted()).unwrap_err();
    assert_eq!(
        (missing.status(), missing.to_string().as_str()),
        (400, "Internal request missing required signature")
    );

    let headers = signature_headers(&key, MacAlgorithm::HmacSha512, b"")
        .unwrap()
        .to_vec();
    let unsupported = check(&headers, b"", Some(&key), &accepted()).unwrap_err();
    assert_eq!(unsupported.status(), 400);
    assert!(unsupported
        .to_string()
        .starts_with("This worker does not support the 'HmacSHA512' key signing algorithm used by other workers. This worker is currently configured to use: [HmacSHA256]."));

    let unknown = [
        (SIGNATURE_HEADER, "AAAA".to_owned()),
        (SIGNATURE_ALGORITHM_HEADER, "HmacMD4".to_owned()),
    ];
    let e = check(&unknown, b"", Some(&key), &accepted()).unwrap_err();
    assert_eq!(
        (e.status(), e.to_string().as_str()),
        (400, "Algorithm HmacMD4 not available")
    );

    let garbled = [
        (SIGNATURE_HEADER, "not base64!".to_owned()),
        (SIGNATURE_ALGORITHM_HEADER, "HmacSHA256".to_owned()),
    ];
    assert_eq!(
        check(&garbled, b"", Some(&key), &accepted()),
        Err(Rejection::BadEncoding)
    );

    let signed = signature_headers(&key, MacAlgorithm::HmacSha256, b"")
        .unwrap()
        .to_vec();
    let no_key = check(&signed, b"", None, &accepted()).unwrap_err();
    assert_eq!(no_key.status(), 503);
}

#[test]
fn the_key_never_prints() {
    let key = SigningKey {
        key: b"secret-bytes".to_vec(),
        algorithm: MacAlgorithm::HmacSha256,
    };
    assert_eq!(format!("{key:?}"), "SigningKey(HmacSHA256, [hidden])");
}
