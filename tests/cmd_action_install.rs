//! action.yml's binary download (`scripts/install-action-binary.sh`) against a local HTTP
//! server that serves a fake release: a good release installs a working binary; a tampered
//! archive is refused (exit 1, nothing installed); a ref with no release, or a platform with
//! no binary, asks for the source build (exit 3).

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const TARGET: &str = "x86_64-unknown-linux-musl";

/// Serves `files` (path → body) on 127.0.0.1; anything else is 404. One thread, closes each
/// connection after its answer.
fn serve(files: HashMap<String, Vec<u8>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let files = Arc::new(files);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                    break;
                }
            }
            let path = line.split(' ').nth(1).unwrap_or("/").to_string();
            let (status, body) = match files.get(&path) {
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", b"Not Found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    url
}

/// A release archive holding a `swarm-attack` that prints `marker`.
fn archive(dir: &Path, marker: &str) -> Vec<u8> {
    let src = dir.join("pkg");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("swarm-attack"),
        format!("#!/bin/sh\necho {marker}\n"),
    )
    .unwrap();
    let out = dir.join("a.tar.gz");
    let ok = Command::new("tar")
        .arg("-czf")
        .arg(&out)
        .arg("-C")
        .arg(&src)
        .arg("swarm-attack")
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::read(out).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

struct Install {
    code: i32,
    stdout: String,
    stderr: String,
    bin_dir: PathBuf,
}

fn install(base: &str, reference: &str, os: &str, arch: &str, tmp: &Path) -> Install {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-action-binary.sh");
    let bin_dir = tmp.join("bin");
    let out = Command::new("bash")
        .arg(script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tmp)
        .env("SWARM_ATTACK_REPO", "octo/swarm-attack")
        .env("SWARM_ATTACK_REF", reference)
        .env("RUNNER_OS", os)
        .env("RUNNER_ARCH", arch)
        .env("SWARM_ATTACK_DOWNLOAD_BASE", base)
        .env("SWARM_ATTACK_BIN_DIR", &bin_dir)
        .output()
        .unwrap();
    Install {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        bin_dir,
    }
}

fn release(tmp: &Path, tag: &str, tamper: bool) -> HashMap<String, Vec<u8>> {
    let good = archive(&tmp.join("good"), "release-binary-ok");
    let sums = format!("{}  swarm-attack-{TARGET}.tar.gz\n", sha256_hex(&good));
    let served = if tamper {
        archive(&tmp.join("evil"), "tampered")
    } else {
        good
    };
    HashMap::from([
        (format!("/{tag}/SHA256SUMS"), sums.into_bytes()),
        (format!("/{tag}/swarm-attack-{TARGET}.tar.gz"), served),
    ])
}

#[test]
fn a_release_for_the_ref_installs_a_verified_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let base = serve(release(tmp.path(), "v9.9.9", false));
    let r = install(&base, "v9.9.9", "Linux", "X64", tmp.path());
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let bin = r.bin_dir.join("swarm-attack");
    assert_eq!(r.stdout.trim(), bin.display().to_string());
    let out = Command::new(&bin).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "release-binary-ok"
    );
}

#[test]
fn a_tampered_archive_is_refused_and_nothing_is_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let base = serve(release(tmp.path(), "v9.9.9", true));
    let r = install(&base, "v9.9.9", "Linux", "X64", tmp.path());
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    assert!(r.stderr.contains("checksum mismatch"), "{}", r.stderr);
    assert!(!r.bin_dir.join("swarm-attack").exists());
}

#[test]
fn no_release_or_no_binary_for_the_platform_asks_for_the_source_build() {
    let tmp = tempfile::tempdir().unwrap();
    let base = serve(release(tmp.path(), "v9.9.9", false));
    let r = install(&base, "main", "Linux", "X64", tmp.path());
    assert_eq!(r.code, 3, "a branch has no release: {}", r.stderr);
    let r = install(&base, "v9.9.9", "Windows", "X64", tmp.path());
    assert_eq!(r.code, 3, "no Windows binary: {}", r.stderr);
    assert!(!r.bin_dir.join("swarm-attack").exists());
}
