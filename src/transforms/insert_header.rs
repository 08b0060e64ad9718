//! `org.apache.kafka.connect.transforms.InsertHeader`: appends the header `header` with the
//! value of `value.literal`, parsed as Kafka's `Values.parseString` does (so `42` is an INT8).

use connect_api::config_def::Default as Def;
use connect_api::{
    ConfigDef, ConfigKey, ConfigMap, ConfigType, ConnectRecord, Importance, RecordContext, Result,
    Schema, SchemaRef, SchemaType, Transformation, TransformationPlugin, Value,
};

use crate::transforms::config::parse;
use connect_api::values::parse_string;

/// The InsertHeader transform.
#[derive(Debug, Default)]
pub struct InsertHeader {
    header: String,
    schema: Option<SchemaRef>,
    value: Value,
}

fn config_def() -> ConfigDef {
    ConfigDef::new()
        .define(ConfigKey::new(
            "header",
            ConfigType::String,
            Def::Required,
            Importance::High,
            "The name of the header.",
        ))
        .define(ConfigKey::new(
            "value.literal",
            ConfigType::String,
            Def::Required,
            Importance::High,
            "The literal value that is to be set as the header value on all records.",
        ))
}

impl Transformation for InsertHeader {
    fn configure(&mut self, props: &ConfigMap) -> Result<()> {
        let values = parse(&config_def(), props)?;
        self.header = values.string("header").unwrap_or_default().to_owned();
        let literal = values.string("value.literal").unwrap_or_default();
        (self.schema, self.value) = match parse_string(literal) {
            Ok(Some((schema, value))) => (Some(schema), value),
            Ok(None) => (None, Value::Null),
            Err(_) => (
                Some(Schema::required(SchemaType::String)),
                Value::String(literal.to_owned()),
            ),
        };
        Ok(())
    }

    fn apply(
        &mut self,
        mut record: ConnectRecord,
        _ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>> {
        record
            .headers
            .add(self.header.clone(), self.schema.clone(), self.value.clone());
        Ok(Some(record))
    }
}

/// The plugin descriptor.
pub const PLUGIN: TransformationPlugin = TransformationPlugin {
    class_name: "org.apache.kafka.connect.transforms.InsertHeader",
    config_def,
    new: || Box::<InsertHeader>::default(),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(pairs: &[(&str, &str)]) -> Result<Box<dyn Transformation>> {
        let mut t = (PLUGIN.new)();
        let props = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        t.configure(&props).map(|()| t)
    }

    #[test]
    fn appends_the_parsed_literal() {
        let cases: &[(&str, Option<SchemaType>, Value)] = &[
            ("42", Some(SchemaType::Int8), Value::Int8(42)),
            ("70000", Some(SchemaType::Int32), Value::Int32(70000)),
            ("true", Some(SchemaType::Boolean), Value::Boolean(true)),
            (
                "hello",
                Some(SchemaType::String),
                Value::String("hello".into()),
            ),
            ("", Some(SchemaType::String), Value::String(String::new())),
            ("null", None, Value::Null),
        ];
        for (literal, schema_type, value) in cases {
            let mut t = configured(&[("header", "h"), ("value.literal", literal)]).unwrap();
            let mut record = ConnectRecord::default();
            record.headers.add("h", None, Value::Null);
            let out = t.apply(record, &RecordContext::source()).unwrap().unwrap();
            assert_eq!(out.headers.0.len(), 2, "{literal}");
            let h = &out.headers.0[1];
            assert_eq!(h.key, "h");
            assert_eq!(h.schema.as_ref().map(|s| s.schema_type), *schema_type);
            assert_eq!(&h.value, value, "{literal}");
        }
    }

    #[test]
    fn both_keys_are_required() {
        let e = configured(&[("header", "h")]).err().unwrap().to_string();
        assert!(
            e.contains("\"value.literal\" which has no default value"),
            "{e}"
        );
        let e = configured(&[("value.literal", "1")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("\"header\" which has no default value"), "{e}");
    }
}
