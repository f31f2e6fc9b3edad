//! The baseline over stdio: the plain rmcp server ([`Plain`]) on this
//! process's stdin and stdout.

use rmcp::ServiceExt as _;

use super::plain::Plain;

/// Serves stdio over the database at `url` as `admin` until stdin ends.
pub fn run(url: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let plain = Plain::open(url).await;
        let running = plain.serve(rmcp::transport::stdio()).await.unwrap();
        running.waiting().await.unwrap();
    });
}
