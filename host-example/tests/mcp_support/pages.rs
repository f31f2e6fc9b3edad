//! The browser pages over plain HTTP, as a form does it: sign in, open a
//! page, or open the approvals inbox and send one of its forms.

/// A client that follows no redirect, and the session cookie of `user`
/// signed in at `base`.
async fn sign_in(base: &str, user: &str) -> (reqwest::Client, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
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
    (client, cookie_of(&signed_in))
}

fn csrf(body: &str) -> String {
    let from = body.find("name=\"csrf\" value=\"").unwrap() + 19;
    body[from..from + body[from..].find('"').unwrap()].to_owned()
}

fn cookie_of(response: &reqwest::Response) -> String {
    let set = response.headers()["set-cookie"].to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

async fn get(client: &reqwest::Client, cookie: &str, url: String) -> String {
    client
        .get(url)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The page at `path` as `user`, signed in at `base`, sees it.
pub async fn page(base: &str, user: &str, path: &str) -> String {
    let (client, cookie) = sign_in(base, user).await;
    get(&client, &cookie, format!("{base}{path}")).await
}

/// Signs `user` in at `base`, opens the inbox and posts `fields` (form
/// encoded, without the CSRF token, which is added) to `path`; the inbox
/// as it was and the page the answer's redirect leads to (its notice).
pub async fn post_from_inbox(base: &str, user: &str, path: &str, fields: &str) -> (String, String) {
    let (client, cookie) = sign_in(base, user).await;
    let inbox = get(&client, &cookie, format!("{base}/approvals")).await;
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
    let page = get(&client, &cookie, format!("{base}{location}")).await;
    (inbox, page)
}
