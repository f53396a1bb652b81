//! The `swarm-attack` binary: keep the secrets out of the environment (see
//! `io::secrets`), parse arguments, run the library, map the error kind to an exit code.

fn main() -> std::process::ExitCode {
    // the hidden supervisor mode (process containment) runs before anything else
    swarm_attack::io::contain::init_binary();
    swarm_attack::io::secrets::init_or_reexec();
    swarm_attack::cli::main_entry()
}
