//! `GET /openapi.json`: the OpenAPI 3.0.3 document of this REST API (`openapi.json`, written by
//! hand next to this file and compiled in), for clients, API explorers and the Schemathesis run
//! of `scripts/schemathesis.sh`. Keep it in step with the routes: `tests/rest/rest_openapi.rs`
//! checks that it lists every path the router serves.

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use super::AppState;

/// The OpenAPI 3.0.3 document served at `GET /openapi.json`.
pub const OPENAPI_JSON: &str = include_str!("openapi.json");

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/openapi.json", get(openapi))
}

/// `GET /openapi.json`: the document, as `application/json`.
async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI_JSON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_openapi_3_0_3_json() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).expect("valid JSON");
        assert_eq!(doc["openapi"], "3.0.3");
        assert!(doc["paths"]["/openapi.json"]["get"].is_object());
    }

    #[test]
    fn every_reference_resolves() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).expect("valid JSON");
        let mut refs = Vec::new();
        collect_refs(&doc, &mut refs);
        assert!(!refs.is_empty());
        for r in refs {
            let pointer = r
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("external $ref {r}"));
            assert!(doc.pointer(pointer).is_some(), "dangling $ref {r}");
        }
    }

    fn collect_refs<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("$ref", serde_json::Value::String(s)) => out.push(s),
                        _ => collect_refs(v, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
            _ => {}
        }
    }
}
