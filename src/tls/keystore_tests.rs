use super::*;
use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::stack::Stack;
use openssl::symm::Cipher;
use openssl::x509::X509NameBuilder;

const STORE_PASSWORD: &str = "store-Secret-42";

fn key_and_cert(cn: &str) -> (PKey<Private>, X509) {
    let key = PKey::ec_gen("prime256v1").expect("key");
    let mut name = X509NameBuilder::new().expect("name");
    name.append_entry_by_text("CN", cn).expect("cn");
    let name = name.build();
    let mut b = X509::builder().expect("builder");
    b.set_version(2).expect("version");
    b.set_subject_name(&name).expect("subject");
    b.set_issuer_name(&name).expect("issuer");
    b.set_pubkey(&key).expect("pubkey");
    b.set_not_before(&Asn1Time::days_from_now(0).expect("t"))
        .expect("nb");
    b.set_not_after(&Asn1Time::days_from_now(1).expect("t"))
        .expect("na");
    b.sign(&key, MessageDigest::sha256()).expect("sign");
    (key, b.build())
}

fn cn(cert: &X509) -> String {
    cert.subject_name()
        .entries()
        .next()
        .map(|e| String::from_utf8_lossy(e.data().as_slice()).into_owned())
        .unwrap_or_default()
}

fn map(pairs: &[(&str, &str)]) -> ConfigMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write");
    path.display().to_string()
}

fn pkcs12(key: &PKey<Private>, cert: &X509, password: &str) -> Vec<u8> {
    Pkcs12::builder()
        .name("server")
        .pkey(key)
        .cert(cert)
        .build2(password)
        .expect("pkcs12")
        .to_der()
        .expect("der")
}

#[test]
fn loads_a_pkcs12_keystore_and_gives_pem() {
    let dir = tempfile::tempdir().expect("dir");
    let (key, cert) = key_and_cert("server.test");
    let path = write(&dir, "ks.p12", &pkcs12(&key, &cert, STORE_PASSWORD));
    for store_type in ["PKCS12", "pkcs12", "JKS", ""] {
        let ssl = map(&[
            (KEYSTORE_TYPE, store_type),
            (KEYSTORE_LOCATION, &path),
            (KEYSTORE_PASSWORD, STORE_PASSWORD),
        ]);
        let m = load_keystore(&ssl, "").expect("load").expect("configured");
        assert_eq!(cn(&m.certificate), "server.test", "{store_type}");
        assert!(m
            .certificate_chain_pem()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(m
            .private_key_pem()
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----"));
    }
    assert!(load_keystore(&map(&[]), "").expect("none").is_none());
}

#[test]
fn wrong_pkcs12_password_names_key_and_file_not_the_password() {
    let dir = tempfile::tempdir().expect("dir");
    let (key, cert) = key_and_cert("server.test");
    let path = write(&dir, "ks.p12", &pkcs12(&key, &cert, STORE_PASSWORD));
    let wrong = "Wrong-Guess-99";
    let ssl = map(&[
        (KEYSTORE_TYPE, "PKCS12"),
        (KEYSTORE_LOCATION, &path),
        (KEYSTORE_PASSWORD, wrong),
    ]);
    let e = load_keystore(&ssl, "listeners.https.")
        .unwrap_err()
        .to_string();
    assert!(e.contains("listeners.https.ssl.keystore.location"), "{e}");
    assert!(e.contains(&path), "{e}");
    assert!(e.contains("listeners.https.ssl.keystore.password"), "{e}");
    assert!(!e.contains(wrong) && !e.contains(STORE_PASSWORD), "{e}");
    // No password at all: Kafka's rule, said with the key.
    let ssl = map(&[(KEYSTORE_TYPE, "PKCS12"), (KEYSTORE_LOCATION, &path)]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(e.contains("ssl.keystore.password: is required"), "{e}");
}

#[test]
fn java_keystore_is_refused_with_the_conversion_command() {
    let dir = tempfile::tempdir().expect("dir");
    let path = write(
        &dir,
        "ks.jks",
        &[0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2, 1, 2, 3],
    );
    let ssl = map(&[
        (KEYSTORE_LOCATION, &path),
        (KEYSTORE_PASSWORD, STORE_PASSWORD),
    ]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(e.contains("Java KeyStore (JKS)"), "{e}");
    assert!(e.contains("keytool -importkeystore"), "{e}");
    assert!(e.contains("-deststoretype PKCS12"), "{e}");
    assert!(e.contains(&path) && !e.contains(STORE_PASSWORD), "{e}");
    let ssl = map(&[(TRUSTSTORE_LOCATION, &path)]);
    let e = load_truststore(&ssl, "").unwrap_err().to_string();
    assert!(
        e.contains("ssl.truststore.location") && e.contains("keytool"),
        "{e}"
    );
}

#[test]
fn loads_pem_keystore_file_with_encrypted_key() {
    let dir = tempfile::tempdir().expect("dir");
    let (key, cert) = key_and_cert("pem.test");
    let key_password = "Key-Pass-7";
    let mut pem = cert.to_pem().unwrap();
    pem.extend(
        key.private_key_to_pem_pkcs8_passphrase(Cipher::aes_256_cbc(), key_password.as_bytes())
            .unwrap(),
    );
    let path = write(&dir, "ks.pem", &pem);
    let ssl = map(&[
        (KEYSTORE_TYPE, "PEM"),
        (KEYSTORE_LOCATION, &path),
        (KEY_PASSWORD, key_password),
    ]);
    let m = load_keystore(&ssl, "").expect("load").expect("configured");
    assert_eq!(cn(&m.certificate), "pem.test");
    // Without the key password: a hint, and no prompt on the terminal.
    let ssl = map(&[(KEYSTORE_TYPE, "PEM"), (KEYSTORE_LOCATION, &path)]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(
        e.contains("encrypted") && e.contains("ssl.key.password"),
        "{e}"
    );
    // Wrong key password: named, not shown.
    let ssl = map(&[
        (KEYSTORE_TYPE, "PEM"),
        (KEYSTORE_LOCATION, &path),
        (KEY_PASSWORD, "nope-nope"),
    ]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(
        e.contains("ssl.key.password") && !e.contains("nope-nope"),
        "{e}"
    );
    // A PEM file with the default type says which type to set.
    let ssl = map(&[(KEYSTORE_LOCATION, &path), (KEYSTORE_PASSWORD, "x")]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(e.contains("ssl.keystore.type=PEM"), "{e}");
}

#[test]
fn loads_inline_pem_and_checks_kafka_rules() {
    let (key, cert) = key_and_cert("inline.test");
    let chain = String::from_utf8(cert.to_pem().unwrap()).unwrap();
    let key_pem = String::from_utf8(key.private_key_to_pem_pkcs8().unwrap()).unwrap();
    let ssl = map(&[
        (KEYSTORE_TYPE, "PEM"),
        (KEYSTORE_CERTIFICATE_CHAIN, &chain),
        (KEYSTORE_KEY, &key_pem),
    ]);
    let m = load_keystore(&ssl, "").expect("load").expect("configured");
    assert_eq!(cn(&m.certificate), "inline.test");
    let e = load_keystore(
        &map(&[
            (KEYSTORE_CERTIFICATE_CHAIN, &chain),
            (KEYSTORE_KEY, &key_pem),
        ]),
        "",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ssl.keystore.type=PEM"), "{e}");
    assert!(!e.contains("PRIVATE KEY"), "the key is never echoed: {e}");
    let e = load_keystore(
        &map(&[(KEYSTORE_TYPE, "PEM"), (KEYSTORE_KEY, &key_pem)]),
        "",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ssl.keystore.certificate.chain"), "{e}");
    // A key of another certificate.
    let (_, other) = key_and_cert("other.test");
    let other = String::from_utf8(other.to_pem().unwrap()).unwrap();
    let ssl = map(&[
        (KEYSTORE_TYPE, "PEM"),
        (KEYSTORE_CERTIFICATE_CHAIN, &other),
        (KEYSTORE_KEY, &key_pem),
    ]);
    let e = load_keystore(&ssl, "").unwrap_err().to_string();
    assert!(e.contains("does not belong"), "{e}");
}

#[test]
fn loads_truststores() {
    let dir = tempfile::tempdir().expect("dir");
    let (_, ca1) = key_and_cert("ca1");
    let (_, ca2) = key_and_cert("ca2");
    let mut stack = Stack::new().unwrap();
    stack.push(ca1.clone()).unwrap();
    stack.push(ca2.clone()).unwrap();
    let der = Pkcs12::builder()
        .ca(stack)
        .build2(STORE_PASSWORD)
        .unwrap()
        .to_der()
        .unwrap();
    let path = write(&dir, "ts.p12", &der);
    let ssl = map(&[
        (TRUSTSTORE_TYPE, "PKCS12"),
        (TRUSTSTORE_LOCATION, &path),
        (TRUSTSTORE_PASSWORD, STORE_PASSWORD),
    ]);
    let certs = load_truststore(&ssl, "")
        .expect("load")
        .expect("configured");
    let mut names: Vec<String> = certs.iter().map(cn).collect();
    names.sort();
    assert_eq!(names, ["ca1", "ca2"]);
    assert_eq!(
        certificates_pem(&certs)
            .unwrap()
            .matches("BEGIN CERTIFICATE")
            .count(),
        2
    );

    let mut pem = ca1.to_pem().unwrap();
    pem.extend(ca2.to_pem().unwrap());
    let pem_path = write(&dir, "ts.pem", &pem);
    let ssl = map(&[(TRUSTSTORE_TYPE, "PEM"), (TRUSTSTORE_LOCATION, &pem_path)]);
    assert_eq!(load_truststore(&ssl, "").unwrap().unwrap().len(), 2);
    let inline = String::from_utf8(pem).unwrap();
    let ssl = map(&[(TRUSTSTORE_TYPE, "PEM"), (TRUSTSTORE_CERTIFICATES, &inline)]);
    assert_eq!(load_truststore(&ssl, "").unwrap().unwrap().len(), 2);

    let ssl = map(&[
        (TRUSTSTORE_TYPE, "PKCS12"),
        (TRUSTSTORE_LOCATION, &path),
        (TRUSTSTORE_PASSWORD, "bad-one-1"),
    ]);
    let e = load_truststore(&ssl, "").unwrap_err().to_string();
    assert!(
        e.contains("ssl.truststore.password") && !e.contains("bad-one-1"),
        "{e}"
    );
    let missing = dir.path().join("missing.p12").display().to_string();
    let e = load_truststore(&map(&[(TRUSTSTORE_LOCATION, &missing)]), "")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Could not read ssl.truststore.location=") && e.contains(&missing),
        "{e}"
    );
    assert!(load_truststore(&map(&[]), "").unwrap().is_none());
}
