//! `jnp.einsum`'s interleaved form, `einsum(x, [0, 1], y, [1, 2], [0, 2])`:
//! operands alternate with their index lists, and an odd last list names
//! the output. As opt_einsum does, the distinct indices are sorted and
//! given the letters a-z, A-Z in that order (an Ellipsis stays `...`), so
//! the spec is the same one the string form would take. Either form's
//! `...` is then spelled out as letters of its own, so the contraction
//! sees named dimensions only.

use crate::bail;
use crate::error::Result;
use crate::python::ops::iterate;
use crate::python::value::Obj;

const SYMBOLS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The letter opt_einsum gives the `i`-th sorted index.
fn symbol(i: usize) -> Result<char> {
    if let Some(&c) = SYMBOLS.get(i) {
        return Ok(c as char);
    }
    // Past the 52 letters opt_einsum continues from chr(192).
    match u32::try_from(i + 140).ok().and_then(char::from_u32) {
        Some(c) if i + 140 < 0xD800 => Ok(c),
        _ => bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum with index {i}"
        ),
    }
}

/// One index list: its integers, or None for an Ellipsis.
fn indices(o: &Obj) -> Result<Vec<Option<i64>>> {
    iterate(o)?
        .iter()
        .map(|item| match item {
            Obj::Ellipsis => Ok(None),
            Obj::Int(i) => Ok(Some(*i)),
            Obj::Bool(b) => Ok(Some(i64::from(*b))),
            _ => bail!(
                NotImplementedError,
                "not supported by shardlab yet: einsum index lists of other than integers and Ellipsis"
            ),
        })
        .collect()
}

/// The string spec and the operands of an interleaved call.
pub(super) fn spec_and_operands(pos: &[Obj]) -> Result<(String, Vec<Obj>)> {
    let pairs = pos.len() / 2;
    let lists: Vec<Vec<Option<i64>>> = (0..pairs)
        .map(|k| indices(&pos[2 * k + 1]))
        .collect::<Result<_>>()?;
    let output = if pos.len() % 2 == 1 {
        Some(indices(&pos[pos.len() - 1])?)
    } else {
        None
    };
    let mut distinct: Vec<i64> = lists.iter().flatten().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let letters = |list: &[Option<i64>]| -> Result<String> {
        list.iter()
            .map(|ix| match ix {
                None => Ok("...".to_string()),
                Some(i) => match distinct.binary_search(i) {
                    Ok(k) => Ok(symbol(k)?.to_string()),
                    Err(_) => bail!(ValueError, "einsum output index {i} is not in the inputs"),
                },
            })
            .collect()
    };
    let inputs: Vec<String> = lists.iter().map(|l| letters(l)).collect::<Result<_>>()?;
    let mut spec = inputs.join(",");
    if let Some(out) = output {
        spec.push_str("->");
        spec.push_str(&letters(&out)?);
    }
    let operands = (0..pairs).map(|k| pos[2 * k].clone()).collect();
    Ok((spec, operands))
}

/// The spec with each `...` spelled out as letters unused elsewhere, one
/// per broadcast dimension, aligned from the right across operands as
/// NumPy aligns them. An implicit output puts those dimensions first.
pub(super) fn expand_ellipsis(spec: &str, ranks: &[usize]) -> Result<String> {
    if !spec.contains("...") {
        return Ok(spec.to_string());
    }
    let (ins, out) = match spec.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (spec, None),
    };
    let inputs: Vec<&str> = ins.split(',').collect();
    let mut widths = vec![];
    for (k, term) in inputs.iter().enumerate() {
        let named = term.replace("...", "").chars().count();
        let rank = ranks.get(k).copied().unwrap_or(0);
        widths.push(if term.contains("...") {
            rank.saturating_sub(named)
        } else {
            0
        });
    }
    let width = widths.iter().copied().max().unwrap_or(0);
    let free: Vec<char> = SYMBOLS
        .iter()
        .rev()
        .map(|&c| c as char)
        .filter(|c| !spec.contains(*c))
        .take(width)
        .collect();
    if free.len() < width {
        bail!(
            NotImplementedError,
            "not supported by shardlab yet: einsum with this many broadcast dimensions"
        );
    }
    let dims = |w: usize| -> String { free[width - w..].iter().collect() };
    let expanded: Vec<String> = inputs
        .iter()
        .zip(&widths)
        .map(|(term, &w)| term.replace("...", &dims(w)))
        .collect();
    let out = match out {
        Some(o) => o.replace("...", &dims(width)),
        None => {
            let joined = expanded.join("");
            let mut once: Vec<char> = ins
                .chars()
                .filter(|c| c.is_alphabetic() && joined.matches(*c).count() == 1)
                .filter(|c| !free.contains(c))
                .collect();
            once.sort_unstable();
            dims(width) + &once.into_iter().collect::<String>()
        }
    };
    Ok(format!("{}->{}", expanded.join(","), out))
}
