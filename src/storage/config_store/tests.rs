//! The memory and file config stores: writes read back as changes, the file's content, and
//! reading it again.

use super::*;

fn config(file: &str) -> ConfigMap {
    [
        ("connector.class".to_owned(), "FileStreamSource".to_owned()),
        ("file".to_owned(), file.to_owned()),
    ]
    .into_iter()
    .collect()
}

#[tokio::test]
async fn a_write_is_reported_by_the_next_read() {
    let mut store = MemoryConfigStore::new();
    store
        .put_connector_config("c", &config("a"), Some(TargetState::Paused))
        .await
        .unwrap();
    assert!(store.snapshot().contains("c"));
    let applied = store.read_to_end().await.unwrap();
    assert!(applied.read);
    assert!(applied
        .changes
        .contains(&ConfigChange::ConnectorConfigUpdated("c".to_owned())));
    assert_eq!(store.snapshot().target_state("c"), TargetState::Paused);
    // Nothing new: nothing read.
    assert!(!store.read_to_end().await.unwrap().read);

    store.put_task_configs("c", &[config("t0")]).await.unwrap();
    store.read_to_end().await.unwrap();
    assert_eq!(store.snapshot().task_count("c"), 1);
    store
        .put_target_state("c", TargetState::Stopped)
        .await
        .unwrap();
    assert_eq!(store.snapshot().task_count("c"), 0);
    store.remove_connector_config("c").await.unwrap();
    assert!(!store.snapshot().contains("c"));
}

#[tokio::test]
async fn the_file_holds_every_connector_and_is_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connectors.json");
    let mut store = FileConfigStore::new(ConfigsFile::new(&path));
    // No file yet: nothing stored.
    assert!(store.read_to_end().await.unwrap().changes.is_empty());
    assert!(!path.exists());
    store
        .put_connector_config("b", &config("b"), Some(TargetState::Stopped))
        .await
        .unwrap();
    store
        .put_connector_config("a", &config("a"), None)
        .await
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        r#"{
  "version": 1,
  "connectors": {
    "a": {
      "config": {
        "connector.class": "FileStreamSource",
        "file": "a"
      },
      "target_state": "STARTED"
    },
    "b": {
      "config": {
        "connector.class": "FileStreamSource",
        "file": "b"
      },
      "target_state": "STOPPED"
    }
  }
}
"#
    );

    let mut again = FileConfigStore::new(ConfigsFile::new(&path));
    again.read_to_end().await.unwrap();
    assert_eq!(again.snapshot().connectors(), vec!["a", "b"]);
    assert_eq!(again.snapshot().target_state("b"), TargetState::Stopped);
    assert_eq!(
        again.snapshot().connector_config("a").map(config_map),
        Some(config("a"))
    );
}

#[tokio::test]
async fn a_corrupt_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connectors.json");
    std::fs::write(&path, "{not json").unwrap();
    let mut store = FileConfigStore::new(ConfigsFile::new(&path));
    let e = store.read_to_end().await.unwrap_err();
    assert!(matches!(e, StorageError::Corrupt { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
}
