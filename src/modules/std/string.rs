//! The `string` module's constants.

use crate::python::value::Obj;

use super::super::Builder;

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
const PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const WHITESPACE: &str = " \t\n\r\x0b\x0c";

/// The `string` module.
pub fn module() -> Obj {
    let mut b = Builder::new("string");
    b.attr("ascii_lowercase", Obj::str(LOWER))
        .attr("ascii_uppercase", Obj::str(UPPER))
        .attr("ascii_letters", Obj::str(format!("{LOWER}{UPPER}")))
        .attr("digits", Obj::str(DIGITS))
        .attr("hexdigits", Obj::str("0123456789abcdefABCDEF"))
        .attr("octdigits", Obj::str("01234567"))
        .attr("punctuation", Obj::str(PUNCTUATION))
        .attr("whitespace", Obj::str(WHITESPACE))
        .attr(
            "printable",
            Obj::str(format!("{DIGITS}{LOWER}{UPPER}{PUNCTUATION}{WHITESPACE}")),
        );
    b.build()
}
