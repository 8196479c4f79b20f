//! Bots at `https://` addresses: `sawah serve` behind a TLS front on
//! loopback with the test certificate of `tests/fixtures/tls`. With the
//! entry's `ca` naming the test authority, hard plays the same games over
//! HTTPS as in process; without it, the certificate is refused (it is
//! verified against the system's roots, which do not hold the test
//! authority), each game a forfeit that says what to do.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::common::{Served, fresh_dir, games, sawah};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tls")
}

/// A TLS front on 127.0.0.1 for the plain server at `backend`: each
/// connection is decrypted with the test certificate and its bytes passed
/// to and from a connection of its own to `backend`. Returns the port.
fn tls_front(backend: String) -> u16 {
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(fixtures().join("bot.pem"))
            .unwrap()
            .map(Result::unwrap)
            .collect();
    let key = PrivateKeyDer::from_pem_file(fixtures().join("bot.key")).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let config = config.clone();
            let backend = backend.clone();
            std::thread::spawn(move || pass_through(client, config, &backend));
        }
    });
    port
}

/// Passes bytes both ways between a TLS client and `backend` until either
/// side closes: short read timeouts on both sockets let one thread take
/// turns.
fn pass_through(client: TcpStream, config: Arc<rustls::ServerConfig>, backend: &str) {
    let Ok(mut plain) = TcpStream::connect(backend) else {
        return;
    };
    let tick = Some(Duration::from_millis(2));
    if client.set_read_timeout(tick).is_err() || plain.set_read_timeout(tick).is_err() {
        return;
    }
    let Ok(connection) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(connection, client);
    let waiting =
        |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
    let mut buffer = vec![0; 64 << 10];
    loop {
        match tls.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if plain.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
            Err(e) if waiting(&e) => {}
            Err(_) => return,
        }
        match plain.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if tls
                    .write_all(&buffer[..n])
                    .and_then(|()| tls.flush())
                    .is_err()
                {
                    return;
                }
            }
            Err(e) if waiting(&e) => {}
            Err(_) => return,
        }
    }
}

fn tournament(agents: &str, bots: &Path, out: &Path) -> (i32, String, String) {
    sawah(&[
        "tournament",
        "--rules",
        "ur-2",
        "--agents",
        agents,
        "--games",
        "8",
        "--seed",
        "11",
        "--out",
        out.to_str().unwrap(),
        "--bots",
        bots.to_str().unwrap(),
    ])
}

#[test]
fn hard_over_https_plays_the_games_it_plays_in_process_and_the_certificate_is_verified() {
    let served = Served::start(&[]);
    let port = tls_front(served.addr.clone());
    let dir = fresh_dir("outside-https");
    let bots = dir.join("bots.toml");
    let ca = fixtures().join("ca.pem");
    std::fs::write(
        &bots,
        format!(
            "[[bot]]\nname = \"secure-hard\"\nurl = \"https://127.0.0.1:{port}\"\nca = {:?}\nbot = \"hard\"\n\n\
             [[bot]]\nname = \"unverified\"\nurl = \"https://localhost:{port}\"\nbot = \"hard\"\n",
            ca.to_str().unwrap()
        ),
    )
    .unwrap();

    let (code, stdout, stderr) = tournament("hard,random", &bots, &dir.join("in-process"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = tournament("secure-hard,random", &bots, &dir.join("https"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let in_process = games(&dir.join("in-process"), "hard");
    let over_https = games(&dir.join("https"), "secure-hard");
    assert_eq!(in_process.len(), 8);
    assert!(over_https.iter().all(|g| g.4.is_null()), "{over_https:?}");
    assert_eq!(
        in_process, over_https,
        "the same games in process and over https"
    );

    // Without the entry's ca, the test authority is unknown: no game is
    // played with the bot, and the forfeit says why and what to do.
    let (code, stdout, stderr) = tournament("unverified,random", &bots, &dir.join("unverified"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let refused = games(&dir.join("unverified"), "unverified");
    assert!(!refused.is_empty());
    let results = std::fs::read_to_string(dir.join("unverified/results.jsonl")).unwrap();
    assert!(refused.iter().all(|g| !g.4.is_null()), "{results}");
    assert!(results.contains("certificate"), "{results}");
    assert!(results.contains("ca = \\\"FILE\\\""), "{results}");
    std::fs::remove_dir_all(&dir).unwrap();
}
