//! The egress guard through its public API: which URLs, redirects and
//! site settings it admits.

use tool_core::Egress;
use tool_core::egress::*;
use url::{Host, ParseError, Url};

const SITE: &str = "http://site.example";

fn site(s: &str) -> Site {
    match Site::parse(s) {
        Ok(site) => site,
        Err(error) => panic!("test site {s:?} rejected: {error}"),
    }
}

fn guard(sites: &[&str]) -> EgressGuard {
    EgressGuard::new(Egress::OwnSite, sites.iter().map(|s| site(s)).collect())
}

fn own() -> EgressGuard {
    guard(&[SITE])
}

fn admitted(guard: &EgressGuard, input: &str) -> String {
    match guard.check(input) {
        Ok(url) => url.to_string(),
        Err(denial) => panic!("{input:?} refused: {denial}"),
    }
}

fn not_own_site(host: &str, port: u16) -> EgressDenied {
    EgressDenied::NotOwnSite {
        scheme: "http".to_owned(),
        host: host.to_owned(),
        port,
    }
}

// Scope and configuration.

#[test]
fn scope_none_refuses_everything() {
    let guard = EgressGuard::new(Egress::None, vec![site(SITE)]);
    assert_eq!(guard.check(SITE), Err(EgressDenied::NoEgress));
    assert_eq!(guard.check("/x"), Err(EgressDenied::NoEgress));
}

#[test]
fn own_site_without_sites_refuses_everything() {
    let guard = EgressGuard::new(Egress::OwnSite, Vec::new());
    assert_eq!(guard.check(SITE), Err(EgressDenied::NoSites));
    assert_eq!(guard.check("/x"), Err(EgressDenied::NoSites));
}

#[test]
fn default_scope_is_none() {
    assert_eq!(Egress::default(), Egress::None);
}

#[test]
fn scope_serde_is_snake_case() {
    let json = serde_json::to_string(&[Egress::None, Egress::OwnSite]);
    assert_eq!(json.ok().as_deref(), Some(r#"["none","own_site"]"#));
    let parsed: Result<Egress, _> = serde_json::from_str(r#""own_site""#);
    assert_eq!(parsed.ok(), Some(Egress::OwnSite));
    let any: Result<Egress, _> = serde_json::from_str(r#""any""#);
    assert!(any.is_err());
}

#[test]
fn scope_permits_nothing_wider_than_itself() {
    assert!(Egress::None.permits(Egress::None));
    assert!(!Egress::None.permits(Egress::OwnSite));
    assert!(Egress::OwnSite.permits(Egress::None));
    assert!(Egress::OwnSite.permits(Egress::OwnSite));
}

#[test]
fn site_parses_origins() {
    let plain = site("https://Example.COM.");
    assert_eq!(plain.scheme(), "https");
    assert_eq!(plain.host(), &Host::Domain("example.com".to_owned()));
    assert_eq!(plain.port(), 443);
    assert_eq!(plain.to_string(), "https://example.com");
    assert_eq!(plain, site("https://example.com:443/"));

    let with_port = site("http://example.com:8080");
    assert_eq!(with_port.port(), 8080);
    assert_eq!(with_port.to_string(), "http://example.com:8080");
}

#[test]
fn site_rejects_what_is_not_an_origin() {
    assert_eq!(
        Site::parse("https://example.com/api"),
        Err(SiteError::Path {
            path: "/api".to_owned()
        })
    );
    assert_eq!(
        Site::parse("https://u:pw@example.com"),
        Err(SiteError::UserInfo)
    );
    assert_eq!(Site::parse("https://example.com/?"), Err(SiteError::Query));
    assert_eq!(
        Site::parse("https://example.com/#x"),
        Err(SiteError::Fragment)
    );
    assert_eq!(
        Site::parse("ftp://example.com"),
        Err(SiteError::SchemeNotAllowed {
            scheme: "ftp".to_owned()
        })
    );
    assert_eq!(
        Site::parse("example.com"),
        Err(SiteError::Unparsable(ParseError::RelativeUrlWithoutBase))
    );
}

#[test]
fn site_error_never_repeats_the_password() {
    let Err(error) = Site::parse("https://user:hunter2@example.com") else {
        panic!("user-info accepted in a site");
    };
    assert!(!error.to_string().contains("hunter2"));
}

#[test]
fn site_serde_round_trips_as_a_string() {
    let parsed: Result<Vec<Site>, _> =
        serde_json::from_str(r#"["https://example.com", "http://example.com:8080"]"#);
    let Ok(sites) = parsed else {
        panic!("sites rejected: {parsed:?}");
    };
    assert_eq!(
        serde_json::to_string(&sites).ok().as_deref(),
        Some(r#"["https://example.com","http://example.com:8080"]"#)
    );
    let bad: Result<Site, _> = serde_json::from_str(r#""https://example.com/api""#);
    assert!(bad.is_err());
}

// Admitted.

#[test]
fn own_site_admitted() {
    assert_eq!(
        admitted(&own(), "http://site.example/a?b=c"),
        "http://site.example/a?b=c"
    );
}

#[test]
fn uppercase_host_and_trailing_dot_admitted() {
    admitted(&own(), "http://SITE.Example/");
    admitted(&own(), "http://site.example./x");
    assert_eq!(
        own().check("http://site.example../"),
        Err(not_own_site("site.example..", 80))
    );
}

#[test]
fn explicit_default_port_admitted() {
    let guard = guard(&["https://site.example"]);
    assert_eq!(
        admitted(&guard, "https://site.example:443/"),
        "https://site.example/"
    );
}

#[test]
fn any_of_several_sites_admitted() {
    let guard = guard(&[SITE, "https://api.example:8443"]);
    admitted(&guard, "https://api.example:8443/v1");
    assert_eq!(
        guard.check("https://api.example/v1"),
        Err(EgressDenied::NotOwnSite {
            scheme: "https".to_owned(),
            host: "api.example".to_owned(),
            port: 443,
        })
    );
}

// Leading `/` and relative references.

#[test]
fn leading_slash_resolves_against_first_site() {
    let guard = guard(&["https://first.example", "https://second.example"]);
    assert_eq!(admitted(&guard, "/a/b?c"), "https://first.example/a/b?c");
}

#[test]
fn dot_dot_path_stays_on_first_site() {
    assert_eq!(admitted(&own(), "/../../x"), "http://site.example/x");
}

#[test]
fn relative_without_leading_slash_refused() {
    for input in ["../x", "x", "?q=1", "#top", "site.example/x", " /x"] {
        assert_eq!(
            own().check(input),
            Err(EgressDenied::RelativeReference),
            "{input:?}"
        );
    }
}

#[test]
fn scheme_relative_refused() {
    assert_eq!(
        own().check("//evil.example"),
        Err(EgressDenied::SchemeRelative)
    );
    assert_eq!(
        own().check("//site.example/x"),
        Err(EgressDenied::SchemeRelative)
    );
}

// Schemes.

#[test]
fn file_scheme_refused() {
    assert_eq!(
        own().check("file:///etc/passwd"),
        Err(EgressDenied::SchemeNotAllowed {
            scheme: "file".to_owned()
        })
    );
}

#[test]
fn gopher_scheme_refused() {
    assert_eq!(
        own().check("gopher://site.example"),
        Err(EgressDenied::SchemeNotAllowed {
            scheme: "gopher".to_owned()
        })
    );
}

#[test]
fn https_site_refuses_http_on_its_port() {
    let guard = guard(&["https://site.example"]);
    assert_eq!(
        guard.check("http://site.example:443/"),
        Err(not_own_site("site.example", 443))
    );
}

// User-info and authority confusion.

#[test]
fn user_info_before_evil_host_refused() {
    assert_eq!(
        own().check("http://site.example@evil.example"),
        Err(EgressDenied::UserInfo)
    );
}

#[test]
fn user_info_on_own_site_refused() {
    assert_eq!(
        own().check("http://user:pw@site.example/"),
        Err(EgressDenied::UserInfo)
    );
    assert_eq!(
        own().check("http://token@site.example/"),
        Err(EgressDenied::UserInfo)
    );
}

#[test]
fn empty_user_info_is_dropped_by_the_parser_and_admitted() {
    // Nothing is sent for an empty `@`: the returned URL has none.
    assert_eq!(
        admitted(&own(), "http://@site.example/"),
        "http://site.example/"
    );
}

#[test]
fn fragment_with_at_sign_refused_by_host() {
    assert_eq!(
        own().check("http://evil.example#@site.example"),
        Err(not_own_site("evil.example", 80))
    );
}

#[test]
fn site_as_subdomain_of_evil_refused() {
    assert_eq!(
        own().check("http://site.example.evil.example"),
        Err(not_own_site("site.example.evil.example", 80))
    );
}

#[test]
fn subdomain_of_site_refused() {
    assert_eq!(
        own().check("http://www.site.example"),
        Err(not_own_site("www.site.example", 80))
    );
}

#[test]
fn other_port_than_site_refused() {
    assert_eq!(
        own().check("http://site.example:8080"),
        Err(not_own_site("site.example", 8080))
    );
}

// IP literals.

fn ip_denied(ip: &str, port: u16) -> Result<Url, EgressDenied> {
    match ip.parse() {
        Ok(ip) => Err(EgressDenied::IpLiteral { ip, port }),
        Err(error) => panic!("bad test address {ip:?}: {error}"),
    }
}

#[test]
fn ipv4_literal_refused() {
    assert_eq!(own().check("http://127.0.0.1"), ip_denied("127.0.0.1", 80));
}

#[test]
fn ipv6_literal_refused() {
    assert_eq!(own().check("http://[::1]"), ip_denied("::1", 80));
}

#[test]
fn decimal_ipv4_refused() {
    assert_eq!(own().check("http://2130706433"), ip_denied("127.0.0.1", 80));
}

#[test]
fn hex_and_short_ipv4_refused() {
    assert_eq!(own().check("http://0x7f.1"), ip_denied("127.0.0.1", 80));
    assert_eq!(own().check("http://127.1"), ip_denied("127.0.0.1", 80));
}

#[test]
fn ip_literal_admitted_only_when_it_is_a_site() {
    let guard = guard(&["http://127.0.0.1:8080", "http://[::1]"]);
    assert_eq!(
        admitted(&guard, "http://127.0.0.1:8080/x"),
        "http://127.0.0.1:8080/x"
    );
    // Other spellings of the same address are the same address to the
    // client, so they are the same site.
    assert_eq!(
        admitted(&guard, "http://2130706433:8080/x"),
        "http://127.0.0.1:8080/x"
    );
    admitted(&guard, "http://[0:0:0:0:0:0:0:1]/");
    assert_eq!(guard.check("http://127.0.0.1/"), ip_denied("127.0.0.1", 80));
    assert_eq!(
        guard.check("http://10.0.0.1:8080/"),
        ip_denied("10.0.0.1", 8080)
    );
    assert_eq!(guard.check("http://[::2]/"), ip_denied("::2", 80));
    assert_eq!(
        guard.check("http://[::ffff:127.0.0.1]:8080/"),
        ip_denied("::ffff:127.0.0.1", 8080)
    );
}

// Percent-encoding and IDNA: compared after the parser's normalisation.

#[test]
fn percent_encoded_own_host_is_compared_decoded() {
    assert_eq!(
        admitted(&own(), "http://%73ite.example/"),
        "http://site.example/"
    );
}

#[test]
fn percent_encoded_evil_host_refused() {
    assert_eq!(
        own().check("http://%65vil.example/"),
        Err(not_own_site("evil.example", 80))
    );
    assert_eq!(
        own().check("http://site.example%2eevil.example/"),
        Err(not_own_site("site.example.evil.example", 80))
    );
}

#[test]
fn percent_encoded_slash_before_at_is_user_info() {
    assert_eq!(
        own().check("http://site.example%2F@evil.example"),
        Err(EgressDenied::UserInfo)
    );
}

#[test]
fn percent_encoded_nul_in_host_unparsable() {
    assert!(matches!(
        own().check("http://site.example%00/"),
        Err(EgressDenied::Unparsable(_))
    ));
}

#[test]
fn idna_lookalike_host_refused() {
    // The first letter is CYRILLIC SMALL LETTER DZE, not `s`.
    assert_eq!(
        own().check("http://\u{0455}ite.example/"),
        Err(not_own_site("xn--ite-ehd.example", 80))
    );
}

#[test]
fn idna_host_equal_after_mapping_admitted() {
    assert_eq!(
        admitted(&own(), "http://ｓｉｔｅ.example/"),
        "http://site.example/"
    );
    let guard = guard(&["https://bücher.example"]);
    assert_eq!(
        admitted(&guard, "https://BÜCHER.example/"),
        "https://xn--bcher-kva.example/"
    );
    admitted(&guard, "https://xn--bcher-kva.example/");
}

// Characters parsers disagree on.

#[test]
fn backslash_scheme_trick_refused() {
    assert_eq!(
        own().check(r"http:\\evil.example"),
        Err(EgressDenied::DisallowedCharacter { character: '\\' })
    );
    // Refused even towards the own site: curl and WHATWG disagree on it.
    assert_eq!(
        own().check(r"http://site.example\@evil.example"),
        Err(EgressDenied::DisallowedCharacter { character: '\\' })
    );
}

#[test]
fn backslash_after_leading_slash_refused() {
    assert_eq!(
        own().check(r"/\evil.example"),
        Err(EgressDenied::DisallowedCharacter { character: '\\' })
    );
}

#[test]
fn tab_and_newline_refused() {
    assert_eq!(
        own().check("/\t/evil.example"),
        Err(EgressDenied::DisallowedCharacter { character: '\t' })
    );
    assert_eq!(
        own().check("http://ev\nil.example"),
        Err(EgressDenied::DisallowedCharacter { character: '\n' })
    );
}

// Length.

#[test]
fn over_long_input_refused_before_parsing() {
    let input = format!("http://site.example/{}", "a".repeat(MAX_URL_LEN));
    assert_eq!(
        own().check(&input),
        Err(EgressDenied::TooLong {
            len: input.len(),
            max: MAX_URL_LEN
        })
    );
    // Not even parsed: garbage of that length gets the same answer.
    let garbage = "\u{0}".repeat(MAX_URL_LEN + 1);
    assert!(matches!(
        own().check(&garbage),
        Err(EgressDenied::TooLong { .. })
    ));
}

#[test]
fn input_growing_past_limit_when_normalised_refused() {
    // Each `é` (2 bytes) becomes `%C3%A9` (6): short enough as given, too long
    // as sent.
    let input = format!("http://site.example/{}", "é".repeat(MAX_URL_LEN / 4));
    assert!(input.len() <= MAX_URL_LEN);
    assert!(matches!(
        own().check(&input),
        Err(EgressDenied::TooLong { .. })
    ));
}

#[test]
fn input_at_limit_admitted() {
    let prefix = "http://site.example/";
    let input = format!("{prefix}{}", "a".repeat(MAX_URL_LEN - prefix.len()));
    assert_eq!(admitted(&own(), &input).len(), MAX_URL_LEN);
}

// Redirects.

fn start() -> Url {
    match Url::parse("http://site.example/a/b") {
        Ok(url) => url,
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn redirect_relative_location_resolved_against_current() {
    let next = own().check_redirect(&start(), "../c?d");
    assert_eq!(
        next.map(String::from),
        Ok("http://site.example/c?d".to_owned())
    );
}

#[test]
fn redirect_to_evil_host_refused() {
    assert_eq!(
        own().check_redirect(&start(), "https://evil.example/"),
        Err(EgressDenied::NotOwnSite {
            scheme: "https".to_owned(),
            host: "evil.example".to_owned(),
            port: 443,
        })
    );
}

#[test]
fn redirect_scheme_relative_location_checked_after_resolving() {
    assert_eq!(
        own().check_redirect(&start(), "//evil.example/"),
        Err(not_own_site("evil.example", 80))
    );
    assert_eq!(
        own()
            .check_redirect(&start(), "//site.example/x")
            .map(String::from),
        Ok("http://site.example/x".to_owned())
    );
}

#[test]
fn redirect_to_file_refused() {
    assert_eq!(
        own().check_redirect(&start(), "file:///etc/passwd"),
        Err(EgressDenied::SchemeNotAllowed {
            scheme: "file".to_owned()
        })
    );
}

/// A fake server: each path redirects to the location in the map, any
/// other path answers with itself.
fn server<'a>(
    redirects: &'a [(&'a str, &'a str)],
    seen: &'a mut Vec<String>,
) -> impl FnMut(&Url) -> Result<Hop<String>, std::convert::Infallible> + 'a {
    move |url| {
        seen.push(url.to_string());
        Ok(
            match redirects.iter().find(|(from, _)| *from == url.as_str()) {
                Some((_, to)) => Hop::Redirect((*to).to_owned()),
                None => Hop::Done(url.to_string()),
            },
        )
    }
}

#[test]
fn follow_checks_every_hop() {
    let chain = [
        ("http://site.example/a", "/b"),
        ("http://site.example/b", "c"),
    ];
    let mut seen = Vec::new();
    let done = own().follow("/a", 5, server(&chain, &mut seen));
    assert_eq!(done.ok().as_deref(), Some("http://site.example/c"));
    assert_eq!(seen.len(), 3);
}

#[test]
fn follow_refuses_chain_at_evil_hop() {
    let chain = [
        ("http://site.example/a", "/b"),
        ("http://site.example/b", "http://evil.example/c"),
    ];
    let mut seen = Vec::new();
    let result = own().follow("/a", 5, server(&chain, &mut seen));
    assert!(matches!(
        result,
        Err(FollowError::Denied {
            hop: 2,
            denial: EgressDenied::NotOwnSite { .. }
        })
    ));
    assert!(!seen.iter().any(|url| url.contains("evil")), "{seen:?}");
}

#[test]
fn follow_refuses_too_many_hops() {
    let chain = [
        ("http://site.example/a", "/b"),
        ("http://site.example/b", "/c"),
        ("http://site.example/c", "/d"),
    ];
    let mut seen = Vec::new();
    let result = own().follow("/a", 2, server(&chain, &mut seen));
    assert!(matches!(
        result,
        Err(FollowError::TooManyRedirects { max: 2 })
    ));
    assert_eq!(seen.len(), 3);

    let mut seen = Vec::new();
    let result = own().follow("/a", 3, server(&chain, &mut seen));
    assert_eq!(result.ok().as_deref(), Some("http://site.example/d"));
}

#[test]
fn follow_refuses_any_redirect_when_max_is_zero() {
    let chain = [("http://site.example/a", "/b")];
    let mut seen = Vec::new();
    let result = own().follow("/a", 0, server(&chain, &mut seen));
    assert!(matches!(
        result,
        Err(FollowError::TooManyRedirects { max: 0 })
    ));
}

#[test]
fn follow_refuses_evil_start_without_fetching() {
    let mut seen = Vec::new();
    let result = own().follow("http://evil.example/", 5, server(&[], &mut seen));
    assert!(matches!(result, Err(FollowError::Denied { hop: 0, .. })));
    assert!(seen.is_empty());
}

#[test]
fn follow_reports_fetch_error_with_its_hop() {
    let result: Result<(), _> = own().follow("/a", 5, |url| {
        if url.path() == "/a" {
            Ok(Hop::Redirect("/b".to_owned()))
        } else {
            Err("connection reset")
        }
    });
    assert!(matches!(
        result,
        Err(FollowError::Fetch {
            hop: 1,
            error: "connection reset"
        })
    ));
}

/// Drives a future that never waits; enough for fakes, without a runtime.
fn ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("test future waited"),
    }
}

#[test]
fn follow_async_refuses_chain_at_evil_hop() {
    let chain = [
        ("http://site.example/a", "/b"),
        ("http://site.example/b", "http://evil.example/c"),
    ];
    let mut seen = Vec::new();
    let mut fetch = server(&chain, &mut seen);
    let guard = own();
    let result = ready(guard.follow_async("/a", 5, |url: Url| std::future::ready(fetch(&url))));
    assert!(matches!(result, Err(FollowError::Denied { hop: 2, .. })));
}

#[test]
fn follow_async_refuses_too_many_hops() {
    let chain = [
        ("http://site.example/a", "/b"),
        ("http://site.example/b", "/a"),
    ];
    let mut seen = Vec::new();
    let mut fetch = server(&chain, &mut seen);
    let guard = own();
    let result = ready(guard.follow_async("/a", 10, |url: Url| std::future::ready(fetch(&url))));
    assert!(matches!(
        result,
        Err(FollowError::TooManyRedirects { max: 10 })
    ));
    drop(fetch);
    assert_eq!(seen.len(), 11);
}
