//! Python's `hashlib` for the algorithms programs commonly use: `md5`,
//! `sha1`, `sha224`, `sha256`, `sha384`, `sha512`, `blake2b` and `blake2s`
//! (with `digest_size`), and `new(name, data)`. A hash object takes bytes
//! (a `str` is a TypeError, as in Python) through its constructor and
//! `update`, and gives `digest()`, `hexdigest()`, `copy()`, `name`,
//! `digest_size` and `block_size`. The digests are RustCrypto's.

use std::cell::RefCell;
use std::rc::Rc;

use blake2::digest::{Update, VariableOutput};
use sha2::Digest;

use crate::error::Result;
use crate::python::bytes::{as_bytes, bytes_obj};
use crate::python::format::str_of;
use crate::python::interp::Interp;
use crate::python::object::Object;
use crate::python::value::{Args, Obj};
use crate::{bail, err};

use super::super::Builder;

/// The algorithms, with their digest and block sizes in bytes.
#[derive(Clone, Copy, PartialEq)]
enum Algo {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Blake2b(usize),
    Blake2s(usize),
}

impl Algo {
    fn name(self) -> &'static str {
        match self {
            Algo::Md5 => "md5",
            Algo::Sha1 => "sha1",
            Algo::Sha224 => "sha224",
            Algo::Sha256 => "sha256",
            Algo::Sha384 => "sha384",
            Algo::Sha512 => "sha512",
            Algo::Blake2b(_) => "blake2b",
            Algo::Blake2s(_) => "blake2s",
        }
    }

    fn digest_size(self) -> usize {
        match self {
            Algo::Md5 => 16,
            Algo::Sha1 => 20,
            Algo::Sha224 => 28,
            Algo::Sha256 => 32,
            Algo::Sha384 => 48,
            Algo::Sha512 => 64,
            Algo::Blake2b(n) | Algo::Blake2s(n) => n,
        }
    }

    fn block_size(self) -> usize {
        match self {
            Algo::Sha384 | Algo::Sha512 | Algo::Blake2b(_) => 128,
            _ => 64,
        }
    }

    /// The digest of `data`.
    fn digest(self, data: &[u8]) -> Result<Vec<u8>> {
        Ok(match self {
            Algo::Md5 => md5::Md5::digest(data).to_vec(),
            Algo::Sha1 => sha1::Sha1::digest(data).to_vec(),
            Algo::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Algo::Sha256 => sha2::Sha256::digest(data).to_vec(),
            Algo::Sha384 => sha2::Sha384::digest(data).to_vec(),
            Algo::Sha512 => sha2::Sha512::digest(data).to_vec(),
            Algo::Blake2b(n) => variable::<blake2::Blake2bVar>(n, data)?,
            Algo::Blake2s(n) => variable::<blake2::Blake2sVar>(n, data)?,
        })
    }
}

/// A BLAKE2 digest of `n` bytes.
fn variable<H: VariableOutput + Update>(n: usize, data: &[u8]) -> Result<Vec<u8>> {
    let mut h = H::new(n).map_err(|_| err!(ValueError, "digest_size is out of range"))?;
    h.update(data);
    let mut out = vec![0; n];
    h.finalize_variable(&mut out)
        .map_err(|_| err!(ValueError, "digest_size is out of range"))?;
    Ok(out)
}

/// A hash object: its algorithm and the data fed to it so far (the digest
/// is computed when asked, so `copy` and `update` are plain data moves).
struct Hash {
    algo: Algo,
    data: RefCell<Vec<u8>>,
}

/// The bytes of a hashed value: Python hashes bytes only.
fn data_of(o: &Obj) -> Result<Vec<u8>> {
    match (as_bytes(o), o) {
        (Some(b), _) => Ok(b),
        (None, Obj::Str(_)) => bail!(TypeError, "Strings must be encoded before hashing"),
        (None, other) => bail!(
            TypeError,
            "object supporting the buffer API required, got {}",
            other.type_name()
        ),
    }
}

fn hash_obj(algo: Algo, data: Vec<u8>) -> Obj {
    Obj::Lib(Rc::new(Hash {
        algo,
        data: RefCell::new(data),
    }))
}

impl Object for Hash {
    fn type_name(&self) -> String {
        match self.algo {
            Algo::Blake2b(_) | Algo::Blake2s(_) => self.algo.name().into(),
            _ => "HASH".into(),
        }
    }

    fn repr(&self, this: &Obj) -> Option<String> {
        let addr = match this {
            Obj::Lib(rc) => Rc::as_ptr(rc) as *const u8 as usize,
            _ => 0,
        };
        Some(match self.algo {
            Algo::Blake2b(_) | Algo::Blake2s(_) => {
                format!("<_blake2.{} object at 0x{addr:x}>", self.algo.name())
            }
            _ => format!("<{} _hashlib.HASH object @ 0x{addr:x}>", self.algo.name()),
        })
    }

    fn getattr(&self, _: &mut Interp, this: &Obj, name: &str) -> Result<Option<Obj>> {
        let algo = self.algo;
        let me = this.clone();
        let data = move || -> Vec<u8> {
            me.downcast::<Hash>()
                .map(|h| h.data.borrow().clone())
                .unwrap_or_default()
        };
        Ok(Some(match name {
            "name" => Obj::str(algo.name()),
            "digest_size" => Obj::Int(algo.digest_size() as i64),
            "block_size" => Obj::Int(algo.block_size() as i64),
            "digest" => Obj::native("digest", move |_, _| Ok(bytes_obj(algo.digest(&data())?))),
            "hexdigest" => Obj::native("hexdigest", move |_, _| {
                let d = algo.digest(&data())?;
                Ok(Obj::str(
                    d.iter().map(|c| format!("{c:02x}")).collect::<String>(),
                ))
            }),
            "copy" => Obj::native("copy", move |_, _| Ok(hash_obj(algo, data()))),
            "update" => {
                let me = this.clone();
                Obj::native("update", move |_, a| {
                    let more = data_of(&a.req(Some(0), "data", "update")?)?;
                    if let Some(h) = me.downcast::<Hash>() {
                        h.data.borrow_mut().extend(more);
                    }
                    Ok(Obj::None)
                })
            }
            _ => return Ok(None),
        }))
    }
}

/// The initial data a constructor got: positional, or by the keyword
/// `keyword` (CPython 3.11 names it `string` for the OpenSSL digests and
/// `data` for `new`; the BLAKE2 constructors take it by position only).
fn initial(a: &Args, at: usize, keyword: Option<&str>, fname: &str) -> Result<Vec<u8>> {
    for (k, _) in &a.kw {
        let blake_option = fname.starts_with("blake2") && k != "data" && k != "string";
        if Some(k.as_str()) != keyword && !blake_option {
            bail!(
                TypeError,
                "'{k}' is an invalid keyword argument for {fname}()"
            );
        }
    }
    let given = match keyword {
        Some(kw) => a.opt(Some(at), kw),
        None => a.pos.get(at).cloned(),
    };
    match given {
        Some(d) => data_of(&d),
        None => Ok(vec![]),
    }
}

/// A BLAKE2 constructor's algorithm: `digest_size` within its range; keys,
/// salts and the tree parameters are refused by name.
fn blake2(a: &Args, big: bool) -> Result<Algo> {
    for name in [
        "key",
        "salt",
        "person",
        "fanout",
        "depth",
        "leaf_size",
        "node_offset",
        "node_depth",
        "inner_size",
        "last_node",
    ] {
        if a.opt(None, name).is_some() {
            bail!(
                NotImplementedError,
                "not supported by shardlab yet: hashlib.{} with {name}",
                if big { "blake2b" } else { "blake2s" }
            );
        }
    }
    let max = if big { 64 } else { 32 };
    let n = match a.opt(None, "digest_size") {
        Some(Obj::Int(n)) => n,
        Some(other) => bail!(
            TypeError,
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        ),
        None => max,
    };
    if n < 1 || n > max {
        bail!(ValueError, "digest_size must be between 1 and {max} bytes");
    }
    Ok(match big {
        true => Algo::Blake2b(n as usize),
        false => Algo::Blake2s(n as usize),
    })
}

/// The algorithm `name` (as `hashlib.new` takes it) with default options.
fn by_name(name: &str) -> Option<Algo> {
    Some(match name.to_lowercase().as_str() {
        "md5" => Algo::Md5,
        "sha1" => Algo::Sha1,
        "sha224" => Algo::Sha224,
        "sha256" => Algo::Sha256,
        "sha384" => Algo::Sha384,
        "sha512" => Algo::Sha512,
        "blake2b" => Algo::Blake2b(64),
        "blake2s" => Algo::Blake2s(32),
        _ => return None,
    })
}

/// `hashlib.new(name, data=b'')`.
fn new(_: &mut Interp, a: Args) -> Result<Obj> {
    let name = str_of(&a.req(Some(0), "name", "new")?).to_string();
    let algo = match by_name(&name) {
        Some(Algo::Blake2b(_)) => blake2(&a, true)?,
        Some(Algo::Blake2s(_)) => blake2(&a, false)?,
        Some(algo) => algo,
        None => bail!(ValueError, "unsupported hash type {name}"),
    };
    let options: Vec<(String, Obj)> = a.kw.iter().filter(|(k, _)| k != "data").cloned().collect();
    if let Some((k, _)) = options.first() {
        if !algo.name().starts_with("blake2") {
            bail!(
                TypeError,
                "'{k}' is an invalid keyword argument for openssl_{}()",
                algo.name()
            );
        }
    }
    let data = match a.opt(Some(1), "data") {
        Some(d) => data_of(&d)?,
        None => vec![],
    };
    Ok(hash_obj(algo, data))
}

/// The `hashlib` module.
pub fn module() -> Obj {
    let mut b = Builder::new("hashlib");
    for name in ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"] {
        let algo = by_name(name);
        b.func(name, move |_, a| match algo {
            Some(algo) => Ok(hash_obj(
                algo,
                initial(&a, 0, Some("string"), &format!("openssl_{name}"))?,
            )),
            None => bail!(ValueError, "unsupported hash type"),
        });
    }
    b.func("blake2b", |_, a| {
        let data = initial(&a, 0, None, "blake2b")?;
        Ok(hash_obj(blake2(&a, true)?, data))
    });
    b.func("blake2s", |_, a| {
        let data = initial(&a, 0, None, "blake2s")?;
        Ok(hash_obj(blake2(&a, false)?, data))
    });
    b.func("new", new);
    b.build()
}
