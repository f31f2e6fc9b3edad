//! The browser pages over plain HTTP, as a form does it: sign in, open the
//! approvals inbox, send one of its forms.

/// Signs `user` in at `base`, opens the inbox and posts `fields` (form
/// encoded, without the CSRF token, which is added) to `path`; the inbox
/// as it was and the page the answer's redirect leads to (its notice).
pub async fn post_from_inbox(base: &str, user: &str, path: &str, fields: &str) -> (String, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let csrf = |body: &str| {
        let from = body.find("name=\"csrf\" value=\"").unwrap() + 19;
        body[from..from + body[from..].find('"').unwrap()].to_owned()
    };
    let cookie_of = |response: &reqwest::Response| {
        let set = response.headers()["set-cookie"].to_str().unwrap();
        set.split(';').next().unwrap().to_owned()
    };
    let form = client.get(format!("{base}/signin")).send().await.unwrap();
    let cookie = cookie_of(&form);
    let token = csrf(&form.text().await.unwrap());
    let signed_in = client
        .post(format!("{base}/signin"))
        .header("cookie", &cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("name={user}&password=demo&csrf={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 303);
    let cookie = cookie_of(&signed_in);
    let inbox = client
        .get(format!("{base}/approvals"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let token = csrf(&inbox);
    let body = if fields.is_empty() {
        format!("csrf={token}")
    } else {
        format!("{fields}&csrf={token}")
    };
    let answered = client
        .post(format!("{base}{path}"))
        .header("cookie", &cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 303);
    let location = answered.headers()["location"].to_str().unwrap().to_owned();
    let page = client
        .get(format!("{base}{location}"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    (inbox, page)
}
