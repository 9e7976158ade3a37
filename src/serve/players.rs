//! Players from the page: a spec from a request is checked against a whitelist of the
//! keys each player takes from the web ([`WEB_KEYS`]) and the server's caps
//! ([`WebCaps`]), so no request names a file or asks for more memory or work than the
//! caps allow. Networks (`cnn:model=`, `policy:model=`, `mcts:net=`) come by bare file
//! name from the folder given to `serve --nets DIR` only ([`Nets`]); evaluators and move
//! models by name, built-in or stored in the database.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use super::Evaluators;
use super::http::ApiError;
use super::play::{self, PlayerError};
use chessgraph_engine::eval::Evaluator;
use chessgraph_engine::players::{ResolveError, Spec};

/// Caps on the players a page may ask for: a spec from the web never names a file and
/// never asks for more memory or work than these.
#[derive(Debug, Clone, Copy)]
pub struct WebCaps {
    /// Largest engine hash table (MiB).
    pub max_hash_mib: usize,
    /// Deepest `minimax` search.
    pub max_depth: u32,
    /// Most `mcts` iterations.
    pub max_iterations: u64,
    /// Longest `mcts` rollout (plies).
    pub max_rollout: u64,
    /// Most `mcts:net=` simulations.
    pub max_simulations: u64,
}

impl Default for WebCaps {
    fn default() -> WebCaps {
        WebCaps {
            max_hash_mib: 64,
            max_depth: 8,
            max_iterations: 200_000,
            max_rollout: 100,
            max_simulations: 2_000,
        }
    }
}

/// The keys each player takes from the page; any other key is refused. A whitelist: an
/// option added to a player later (a file, a size) stays off the page until it is
/// listed here with its cap. `mcts:net` is `mcts` with a network.
pub const WEB_KEYS: &[(&str, &[&str])] = &[
    ("engine", &["evaluator", "hash"]),
    ("random", &["seed"]),
    ("greedy", &["evaluator"]),
    ("minimax", &["depth", "order", "evaluator"]),
    ("mcts", &["iterations", "c", "rollout", "seed", "evaluator"]),
    ("mcts:net", &["net", "simulations", "c", "seed"]),
    ("logistic", &["fit"]),
    ("cnn", &["model"]),
    ("policy", &["model"]),
];

/// Keys whose value names a network: a bare file name in the `--nets` folder.
const NET_KEYS: &[(&str, &str)] = &[("mcts:net", "net"), ("cnn", "model"), ("policy", "model")];

/// The largest network file the server reads (bytes).
pub const MAX_NET_BYTES: u64 = 64 << 20;

/// Longest network name (bytes).
const MAX_NET_NAME: usize = 100;

/// The kind of player a spec names, as [`WEB_KEYS`] lists it.
fn kind(spec: &Spec) -> &str {
    if spec.name == "mcts" && spec.get("net").is_some() {
        "mcts:net"
    } else {
        &spec.name
    }
}

/// Checks a player spec from the page against [`WEB_KEYS`] and `caps`: no file names
/// (`logistic` takes a stored fit, `fit=ID`; networks a bare name), every number within
/// its cap. Returns the parsed spec.
pub fn web_spec(text: &str, caps: &WebCaps) -> Result<Spec, ApiError> {
    let spec = Spec::parse(text).map_err(|e| ApiError::bad(e.to_string()))?;
    let kind = kind(&spec);
    let Some((_, keys)) = WEB_KEYS.iter().find(|(k, _)| *k == kind) else {
        return Err(ApiError::bad(
            chessgraph_engine::players::SpecError::UnknownPlayer(spec.name.clone()).to_string(),
        ));
    };
    if spec.name == "logistic" && spec.get("model").is_some() {
        return Err(ApiError::bad(
            "player logistic: the page cannot name files; use logistic:fit=ID with a fit stored by `chessgraph train moves` (GET /api/db/fits lists them)",
        ));
    }
    if let Some((k, _)) = spec
        .params
        .iter()
        .find(|(k, _)| !keys.contains(&k.as_str()))
    {
        return Err(ApiError::bad(format!(
            "player {kind}: {k}= is not taken from the page (it takes: {})",
            keys.join(", ")
        )));
    }
    let number = |key: &str| -> Result<Option<u64>, ApiError> {
        spec.get(key)
            .map(|v| {
                v.parse::<u64>().map_err(|_| {
                    ApiError::bad(format!("player {kind}: {key}={v:?}: not a whole number"))
                })
            })
            .transpose()
    };
    let capped: [(&str, &str, u64, &str); 5] = [
        ("engine", "hash", caps.max_hash_mib as u64, " MiB"),
        ("minimax", "depth", u64::from(caps.max_depth), ""),
        ("mcts", "iterations", caps.max_iterations, ""),
        ("mcts", "rollout", caps.max_rollout, ""),
        ("mcts:net", "simulations", caps.max_simulations, ""),
    ];
    for (player, key, max, unit) in capped {
        if kind == player && number(key)?.is_some_and(|v| v > max) {
            return Err(ApiError::bad(format!(
                "player {kind}: {key} is at most {max}{unit} from the page (the server's cap)"
            )));
        }
    }
    if let Some((_, key)) = NET_KEYS.iter().find(|(k, _)| *k == kind) {
        let name = spec.get(key).unwrap_or_default();
        if !is_net_name(name) {
            return Err(ApiError::bad(format!(
                "player {kind}: {key}={name:?}: the page names a network by its file name in the server's networks folder (`serve --nets DIR`; GET /api/info lists them), never by a path"
            )));
        }
    }
    if spec.name == "logistic" && number("fit")?.is_none() {
        return Err(ApiError::bad(
            "player logistic: fit=ID is required (a fit stored by `chessgraph train moves`)",
        ));
    }
    Ok(spec)
}

/// Whether `name` may name a network in the `--nets` folder: a bare file name of
/// letters, digits, `.`, `_` and `-`, not starting with `.` (no path, no `..`).
pub fn is_net_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NET_NAME
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The networks the page may play: regular files of at most [`MAX_NET_BYTES`] in the
/// folder given at start-up, by bare file name.
#[derive(Debug, Clone, Default)]
pub struct Nets {
    dir: Option<PathBuf>,
}

impl Nets {
    /// The networks of `dir` (none when `None`).
    pub fn new(dir: Option<PathBuf>) -> Nets {
        Nets { dir }
    }

    /// The names the page may use, sorted (at most 1,000).
    pub fn names(&self) -> Vec<String> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_net_name(n))
            .filter(|n| self.regular(n).is_ok())
            .take(1000)
            .collect();
        names.sort();
        names
    }

    /// The path of network `name`, a regular file within the size cap; the refusal is
    /// the same whatever is or is not at that name.
    fn regular(&self, name: &str) -> Result<PathBuf, String> {
        let unknown = || match &self.dir {
            Some(_) => format!(
                "no network {name:?} in the server's networks folder (GET /api/info lists them)"
            ),
            None => "the server has no networks folder (start it with --nets DIR)".to_owned(),
        };
        let dir = self.dir.as_ref().ok_or_else(unknown)?;
        if !is_net_name(name) {
            return Err(unknown());
        }
        let path = dir.join(name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_NET_BYTES => Ok(path),
            _ => Err(unknown()),
        }
    }

    /// The size of network `name` (0 when there is none).
    pub fn size(&self, name: &str) -> u64 {
        self.regular(name)
            .ok()
            .and_then(|path| std::fs::metadata(path).ok())
            .map_or(0, |m| m.len())
    }

    /// Whether network `name` can be read, without reading it.
    pub fn check(&self, name: &str) -> Result<(), String> {
        self.regular(name).map(|_| ())
    }

    /// The bytes of network `name` (at most [`MAX_NET_BYTES`]).
    pub fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        let path = self.regular(name)?;
        let unreadable = || format!("network {name:?} cannot be read");
        let file = std::fs::File::open(&path).map_err(|_| unreadable())?;
        // The file opened is a regular file too (not swapped for a FIFO since).
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(unreadable());
        }
        let mut bytes = Vec::new();
        file.take(MAX_NET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|_| unreadable())?;
        if bytes.len() as u64 > MAX_NET_BYTES {
            return Err(format!(
                "network {name:?} is over {} MiB",
                MAX_NET_BYTES >> 20
            ));
        }
        Ok(bytes)
    }
}

/// Players for games, from specs checked by [`web_spec`]: evaluators and move models come
/// by name from the built-ins and the database, networks from [`Nets`], never from a
/// path.
pub(super) struct WebPlayers {
    pub(super) evaluators: Arc<Evaluators>,
    pub(super) caps: WebCaps,
    pub(super) nets: Nets,
}

impl WebPlayers {
    /// The player a spec names, with `evaluator` for players whose spec names none.
    fn make(
        &self,
        text: &str,
        evaluator: &str,
        build: bool,
    ) -> Result<Option<Box<dyn chessgraph_engine::players::Player>>, PlayerError> {
        let library = |source: chessgraph_store::Error| PlayerError::Library {
            spec: text.to_owned(),
            source,
        };
        let spec = web_spec(text, &self.caps).map_err(|e| PlayerError::Refused(e.message))?;
        if spec.name == "logistic" {
            let id = spec
                .get("fit")
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0);
            let db = self.evaluators.db.as_ref().ok_or(PlayerError::NoDatabase)?;
            let conn = chessgraph_store::open_read_only(db).map_err(library)?;
            let model = chessgraph_learn::fit::moves::stored(&conn, id)
                .map_err(library)?
                .ok_or(PlayerError::NoFit(id))?;
            let name = PathBuf::from(format!("fit {id}"));
            return Ok(build.then(|| {
                Box::new(chessgraph_engine::players::logistic::LogisticPlayer::new(
                    &name, model,
                )) as Box<dyn chessgraph_engine::players::Player>
            }));
        }
        let default = self
            .evaluators
            .get(evaluator)
            .map_err(|e| PlayerError::Refused(e.message))?;
        let resolve = |name: &str| -> Result<Evaluator, ResolveError> {
            self.evaluators
                .get(name)
                .map(|e| (*e).clone())
                .map_err(|e| e.message.into())
        };
        let bad_spec = |source| PlayerError::Spec {
            spec: text.to_owned(),
            source,
        };
        let settings = chessgraph_engine::players::Settings::check(&spec, default, &resolve)
            .map_err(bad_spec)?;
        if let chessgraph_engine::players::Settings::Net(play, name) = &settings {
            let name = name.to_string_lossy();
            self.nets.check(&name).map_err(PlayerError::Refused)?;
            if !build {
                return Ok(None);
            }
            return self.network(*play, &name).map(Some);
        }
        if !build {
            return Ok(None);
        }
        settings.build().map(Some).map_err(bad_spec)
    }

    /// The network player `play` of network `name` from [`Nets`].
    #[cfg(feature = "cnn")]
    fn network(
        &self,
        play: chessgraph_engine::players::NetPlay,
        name: &str,
    ) -> Result<Box<dyn chessgraph_engine::players::Player>, PlayerError> {
        let bytes = self.nets.read(name).map_err(PlayerError::Refused)?;
        let net = chessgraph_cnn::Net::from_bytes(&bytes, std::path::Path::new(name))
            .map_err(|e| PlayerError::Refused(format!("player {}: {e}", play.as_str())))?;
        chessgraph_engine::players::network_player(play, Arc::new(net), name.to_owned()).map_err(
            |source| PlayerError::Spec {
                spec: format!("{}:{name}", play.as_str()),
                source,
            },
        )
    }

    /// Without the `nets` feature there is no network to play.
    #[cfg(not(feature = "cnn"))]
    fn network(
        &self,
        play: chessgraph_engine::players::NetPlay,
        _name: &str,
    ) -> Result<Box<dyn chessgraph_engine::players::Player>, PlayerError> {
        Err(PlayerError::Refused(format!(
            "player {}: this chessgraph was built without the `nets` feature",
            play.as_str()
        )))
    }
}

impl play::Players for WebPlayers {
    fn check(&self, spec: &str, evaluator: &str) -> Result<(), PlayerError> {
        self.make(spec, evaluator, false).map(|_| ())
    }

    fn build(
        &self,
        spec: &str,
        evaluator: &str,
    ) -> Result<Box<dyn chessgraph_engine::players::Player>, PlayerError> {
        self.make(spec, evaluator, true)?
            .ok_or_else(|| PlayerError::Refused("no player built".to_owned()))
    }

    /// The engine's hash table, a network's file size; the rest hold little between
    /// moves (a tree search's tree lives during its move only).
    fn footprint(&self, text: &str) -> u64 {
        let Ok(spec) = Spec::parse(text) else {
            return 0;
        };
        let kind = kind(&spec);
        if kind == "engine" {
            let hash = spec.get("hash").and_then(|h| h.parse::<u64>().ok());
            return hash.unwrap_or(chessgraph_engine::players::DEFAULT_HASH_MIB as u64) << 20;
        }
        NET_KEYS
            .iter()
            .find(|(k, _)| *k == kind)
            .and_then(|(_, key)| spec.get(key))
            .map_or(0, |name| self.nets.size(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_from_the_page_never_name_files_and_stay_within_the_caps() {
        let caps = WebCaps::default();
        for good in [
            "engine",
            "engine:hash=64,evaluator=material",
            "random:seed=3",
            "minimax:depth=8,order=eval",
            "mcts:iterations=200000,rollout=100,c=1.5",
            "mcts:net=tiny.safetensors,simulations=2000",
            "cnn:model=tiny.safetensors",
            "policy:model=p-1_2.safetensors",
            "logistic:fit=3",
        ] {
            assert!(web_spec(good, &caps).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("cnn:model=/tmp/fifo", "never by a path"),
            ("policy:model=/dev/stdin", "never by a path"),
            ("mcts:net=/etc/shadow", "never by a path"),
            ("mcts:net=../x.safetensors", "never by a path"),
            ("cnn:model=.hidden", "never by a path"),
            ("cnn:model=a/b", "never by a path"),
            (
                "mcts:net=x,simulations=1000000",
                "simulations is at most 2000",
            ),
            ("mcts:rollout=1000", "rollout is at most 100"),
            ("mcts:iterations=1000000", "iterations is at most 200000"),
            ("engine:hash=65", "hash is at most 64 MiB"),
            ("minimax:depth=9", "depth is at most 8"),
            ("logistic:model=/etc/passwd", "cannot name files"),
            ("logistic", "fit=ID is required"),
            ("mcts:net=x,evaluator=material", "evaluator= is not taken"),
            ("engine:threads=4", "threads= is not taken"),
            ("nobody", "unknown player"),
        ] {
            let e = web_spec(bad, &caps).unwrap_err();
            assert_eq!(e.status, 400, "{bad}");
            assert!(e.message.contains(why), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn networks_come_by_name_from_their_folder_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.safetensors"), b"bytes").unwrap();
        std::fs::create_dir(dir.path().join("sub.safetensors")).unwrap();
        let big = std::fs::File::create(dir.path().join("big.safetensors")).unwrap();
        big.set_len(MAX_NET_BYTES + 1).unwrap();
        let nets = Nets::new(Some(dir.path().to_owned()));
        assert_eq!(nets.names(), vec!["a.safetensors"]);
        assert_eq!(nets.read("a.safetensors").unwrap(), b"bytes");
        let unknown = nets.read("nothing").unwrap_err();
        for name in [
            "sub.safetensors",
            "big.safetensors",
            "../a.safetensors",
            "/etc/shadow",
        ] {
            let e = nets.read(name).unwrap_err();
            assert_eq!(e.replace(name, "N"), unknown.replace("nothing", "N"));
        }
        let none = Nets::new(None);
        assert!(none.names().is_empty());
        assert!(none.check("a.safetensors").unwrap_err().contains("--nets"));
    }
}
