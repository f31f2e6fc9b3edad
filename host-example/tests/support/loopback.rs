//! An axum app served on loopback on a thread of its own (with its own
//! runtime), so a test that blocks on the host still has it answering.

use std::net::SocketAddr;

use axum::Router;

/// Starts `app` on 127.0.0.1 on a free port; its address.
pub fn serve(app: Router) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            sender.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    receiver.recv().unwrap()
}
