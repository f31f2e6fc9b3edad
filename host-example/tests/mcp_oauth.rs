//! OAuth access tokens over Streamable HTTP, against the real binary
//! (`host-example serve` on a fresh SQLite database) and a real issuer's
//! key set: a JWKS server on loopback in this process publishing the
//! public half of a test key (tests/fixtures/oauth), tokens signed ES256
//! with it. The raw HTTP answers are checked byte for byte; the official
//! Python client connects with a good token (acting as the mapped user)
//! and is refused with a token for another audience.

mod mcp_support;

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_support::{Driver, Host, is_error};
use serde_json::{Value, json};

const ISSUER_KEY: &[u8] = include_bytes!("fixtures/oauth/issuer-key.pem");
const OTHER_KEY: &[u8] = include_bytes!("fixtures/oauth/other-key.pem");
const KID: &str = "test-key";
/// The issuer's subject for petra, mapped to her in the `oauth` setting.
const PETRA_SUBJECT: &str = "idp|7f3a-petra";

/// The issuer: its key set served on loopback. Returns the issuer's URL.
async fn issuer() -> String {
    let key = EncodingKey::from_ec_pem(ISSUER_KEY).unwrap();
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some(KID.to_owned());
    let keys = serde_json::to_value(JwkSet { keys: vec![jwk] }).unwrap();
    let router = axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let keys = keys.clone();
            async move { axum::Json(keys) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A token with `claims`, signed ES256 with `key` under the issuer's key id.
fn sign(key: &[u8], claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(KID.to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_pem(key).unwrap()).unwrap()
}

/// Claims the server accepts: this issuer, this server, not expired.
fn good_claims(issuer: &str, resource: &str, subject: &str) -> Value {
    json!({
        "iss": issuer,
        "aud": resource,
        "sub": subject,
        "iat": now(),
        "exp": now() + 600,
    })
}

fn with(claims: &Value, key: &str, value: Value) -> Value {
    let mut claims = claims.clone();
    claims[key] = value;
    claims
}

/// One POST of `tools/list` with `authorization`: status, challenge, body.
async fn post(url: &str, authorization: Option<&str>) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}
                }
            })
            .to_string(),
        );
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, challenge, response.text().await.unwrap())
}

async fn get(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[test]
fn http_accepts_the_issuers_tokens_for_this_server_only() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let issuer = runtime.block_on(issuer());
    let host = Host::new();
    let server = host.serve();
    let resource = server.mcp_url();
    let metadata_urls = [
        format!("{}/.well-known/oauth-protected-resource/mcp", server.base),
        format!("{}/.well-known/oauth-protected-resource", server.base),
    ];

    // Without an issuer: no metadata, and a plain challenge.
    for url in &metadata_urls {
        assert_eq!(runtime.block_on(get(url)).0, 404, "{url}");
    }
    let good = sign(ISSUER_KEY, &good_claims(&issuer, &resource, "petra"));
    let (status, challenge, _) = runtime.block_on(post(&resource, Some(&format!("Bearer {good}"))));
    assert_eq!((status, challenge.as_deref()), (401, Some("Bearer")));

    let oauth = json!({
        "issuer": issuer,
        "resource": resource,
        "jwks_uri": format!("{issuer}/jwks"),
        "subjects": {PETRA_SUBJECT: "petra"},
    });
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "oauth",
        &oauth.to_string(),
    ]);

    // The protected-resource metadata, at both well-known paths.
    for url in &metadata_urls {
        let (status, body) = runtime.block_on(get(url));
        assert_eq!(status, 200, "{url}");
        let metadata: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(metadata["resource"], json!(resource));
        assert_eq!(metadata["authorization_servers"], json!([issuer]));
    }

    // Every bad token reads exactly like no token: 401, the challenge
    // pointing at the metadata, an empty body.
    let claims = good_claims(&issuer, &resource, PETRA_SUBJECT);
    let unsigned = {
        let mut parts = sign(ISSUER_KEY, &claims)
            .split('.')
            .map(str::to_owned)
            .collect::<Vec<_>>();
        parts[0] = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0".to_owned(); // {"alg":"none","typ":"JWT"}
        parts[2] = String::new();
        parts.join(".")
    };
    let refused = [
        ("no token", None),
        (
            "another audience",
            Some(sign(
                ISSUER_KEY,
                &with(&claims, "aud", json!(format!("{}/other", server.base))),
            )),
        ),
        (
            "another issuer",
            Some(sign(
                ISSUER_KEY,
                &with(&claims, "iss", json!("http://127.0.0.1:1/other-issuer")),
            )),
        ),
        (
            "expired",
            Some(sign(ISSUER_KEY, &with(&claims, "exp", json!(now() - 3600)))),
        ),
        ("bad signature", Some(sign(OTHER_KEY, &claims))),
        ("unsigned", Some(unsigned)),
        (
            "no subject",
            Some(sign(ISSUER_KEY, &{
                let mut c = claims.clone();
                c.as_object_mut().unwrap().remove("sub");
                c
            })),
        ),
        (
            "an unknown user",
            Some(sign(ISSUER_KEY, &with(&claims, "sub", json!("idp|nobody")))),
        ),
        (
            "a host token that is not one",
            Some("not-a-token".to_owned()),
        ),
    ];
    let expected = (
        401,
        Some(format!("Bearer resource_metadata=\"{}\"", metadata_urls[0])),
        String::new(),
    );
    for (case, token) in &refused {
        let authorization = token.as_ref().map(|token| format!("Bearer {token}"));
        let answer = runtime.block_on(post(&resource, authorization.as_deref()));
        assert_eq!(answer, expected, "{case}");
    }

    // A good token acts as the user its subject maps to.
    let good = sign(ISSUER_KEY, &claims);
    assert_eq!(
        runtime
            .block_on(post(&resource, Some(&format!("Bearer {good}"))))
            .0,
        200
    );
    // The host's own tokens still work beside the issuer's.
    let token = host.token("nils");
    assert_eq!(
        runtime
            .block_on(post(&resource, Some(&format!("Bearer {token}"))))
            .0,
        200
    );

    // The official Python client, both revisions.
    for mode in ["auto", "legacy"] {
        let Some(mut petra) = Driver::python(&["http", mode, &resource, &good]) else {
            return;
        };
        assert_eq!(petra.names(), runtime.block_on(host.granted("petra")));
        let result = petra.call("list_tables", json!({}));
        assert!(!is_error(&result), "{result}");

        let other_audience = sign(
            ISSUER_KEY,
            &with(&claims, "aud", json!("https://other.example/mcp")),
        );
        let mut refused = Driver::python(&["http", mode, &resource, &other_audience]).unwrap();
        let answer = refused.send(json!({"op": "info"}));
        assert!(answer["connect_error"].is_string(), "{mode}: {answer}");
        let statuses = answer["http_statuses"].as_array().unwrap();
        assert!(!statuses.is_empty(), "{mode}: {answer}");
        assert!(statuses.iter().all(|s| s == 401), "{mode}: {answer}");
    }
    // An issuer whose keys cannot be fetched lets nothing through: 503 for
    // its tokens, while the host's own tokens keep working.
    let unreachable = json!({
        "issuer": issuer,
        "resource": resource,
        "jwks_uri": "http://127.0.0.1:9/jwks",
    });
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "oauth",
        &unreachable.to_string(),
    ]);
    let (status, _, body) = runtime.block_on(post(&resource, Some(&format!("Bearer {good}"))));
    assert_eq!((status, body.as_str()), (503, ""));
    assert_eq!(
        runtime
            .block_on(post(&resource, Some(&format!("Bearer {token}"))))
            .0,
        200
    );

    let tail = host.run(&["--user", "admin", "audit", "tail", "-n", "50"]);
    assert!(
        tail.lines()
            .any(|line| line.split_whitespace().any(|w| w == "petra")
                && line.contains("list_tables")
                && line.contains("host-example-python-test/1.0.0")
                && line.contains("done")),
        "{tail}"
    );
}

#[test]
fn the_oauth_setting_is_checked_before_it_is_stored() {
    let host = Host::new();
    for bad in [
        json!({"issuer": "not a url", "resource": "http://127.0.0.1/mcp", "jwks_uri": "http://127.0.0.1/jwks"}),
        json!({"issuer": "http://127.0.0.1", "resource": "ftp://127.0.0.1/mcp", "jwks_uri": "http://127.0.0.1/jwks"}),
        json!({"issuer": "http://127.0.0.1", "resource": "http://127.0.0.1/mcp"}),
        json!({"issuer": "http://127.0.0.1", "resource": "http://127.0.0.1/mcp", "jwks_uri": "http://127.0.0.1/jwks", "audience": "x"}),
    ] {
        let output = host
            .command(&[
                "--user",
                "admin",
                "settings",
                "set",
                "oauth",
                &bad.to_string(),
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{bad}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("oauth"), "{stderr}");
    }
    assert!(
        host.run(&["--user", "admin", "settings", "show"])
            .contains("oauth = null (default)")
    );
}
