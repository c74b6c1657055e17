//! The expression language inside the RON strings.
//!
//! C-like, with C's precedence: `?:`, `||`, `&&`, `|`, `^`, `&`, `== !=`, `< <= > >=`,
//! `<< >>`, `+ -`, `* / %`, unary `- ! ~`; calls `f(a, b)`; array elements `a[i][j]`;
//! names (registers, defines, and the special registers `tid.x`, `ctaid.y`, …); integer
//! literals (`42`, `0x2a`, `42u` for u32) and float literals (`1.5`, `1e-3`).

use std::fmt;

pub mod builtins;

pub use builtins::Context;

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&` (both sides are evaluated)
    LAnd,
    /// `||` (both sides are evaluated)
    LOr,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            And => "&",
            Or => "|",
            Xor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            LAnd => "&&",
            LOr => "||",
        }
    }
    fn prec(self) -> u8 {
        use BinOp::*;
        match self {
            LOr => 1,
            LAnd => 2,
            Or => 3,
            Xor => 4,
            And => 5,
            Eq | Ne => 6,
            Lt | Le | Gt | Ge => 7,
            Shl | Shr => 8,
            Add | Sub => 9,
            Mul | Div | Rem => 10,
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x` (logical not)
    Not,
    /// `~x` (bitwise not)
    BitNot,
}

/// An expression node and where it stands in its string (byte offsets).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: Kind,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// Expression kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// An integer literal; `unsigned` if written with a `u` suffix.
    Int {
        /// Its value.
        value: i64,
        /// Written as `42u`.
        unsigned: bool,
    },
    /// A float literal.
    Float(f64),
    /// A name.
    Name(String),
    /// An array element: `name[i][j]`.
    Index(String, Vec<Node>),
    /// A call: `min(a, b)`.
    Call(String, Vec<Node>),
    /// A unary operation.
    Unary(UnOp, Box<Node>),
    /// A binary operation.
    Binary(BinOp, Box<Node>, Box<Node>),
    /// `c ? a : b` (both sides are evaluated).
    Cond(Box<Node>, Box<Node>, Box<Node>),
}

/// A syntax error in an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// What kind of mistake it is.
    pub problem: SyntaxProblem,
    /// What is wrong.
    pub message: String,
    /// Byte offset in the string.
    pub at: usize,
    /// Length of the offending text (at least 1).
    pub len: usize,
}

/// The kinds of syntax error, for callers that word their own messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxProblem {
    /// A character that no token starts with.
    Character,
    /// A malformed or too large number.
    Number,
    /// Nothing at all.
    Empty,
    /// Text after a complete expression.
    Trailing,
    /// No value where one must stand (after an operator, in brackets).
    Value,
    /// A missing closing bracket, `,` or `:`.
    Expected,
    /// Nested more than 64 deep, or more than 256 operations from the root to a leaf.
    TooDeep,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at column {})", self.message, self.at + 1)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64, bool),
    Float(f64),
    Ident(String),
    Punct(&'static str),
    End,
}

struct Lexer<'a> {
    s: &'a str,
    pos: usize,
    tok: Tok,
    start: usize,
}

const PUNCTS: [&str; 27] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "&", "|", "^", "<",
    ">", "!", "~", "(", ")", "[", "]", ",", "?", ":",
];

impl<'a> Lexer<'a> {
    fn new(s: &'a str) -> Result<Self, SyntaxError> {
        let mut l = Lexer {
            s,
            pos: 0,
            tok: Tok::End,
            start: 0,
        };
        l.bump()?;
        Ok(l)
    }

    fn err<T>(
        &self,
        problem: SyntaxProblem,
        message: impl Into<String>,
        at: usize,
        len: usize,
    ) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            problem,
            message: message.into(),
            at,
            len: len.max(1),
        })
    }

    fn bump(&mut self) -> Result<(), SyntaxError> {
        let b = self.s.as_bytes();
        while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        self.start = self.pos;
        if self.pos >= b.len() {
            self.tok = Tok::End;
            return Ok(());
        }
        let c = b[self.pos];
        if c.is_ascii_digit() || (c == b'.' && b.get(self.pos + 1).is_some_and(u8::is_ascii_digit))
        {
            return self.number();
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut end = self.pos;
            loop {
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                }
                // `tid.x`: a dot followed by a letter continues the name.
                if end + 1 < b.len() && b[end] == b'.' && b[end + 1].is_ascii_alphabetic() {
                    end += 1;
                    continue;
                }
                break;
            }
            self.tok = Tok::Ident(self.s[self.pos..end].to_owned());
            self.pos = end;
            return Ok(());
        }
        for p in PUNCTS {
            if self.s[self.pos..].starts_with(p) {
                self.tok = Tok::Punct(p);
                self.pos += p.len();
                return Ok(());
            }
        }
        let ch = self.s[self.pos..].chars().next().unwrap_or('?');
        self.err(
            SyntaxProblem::Character,
            format!("unexpected character `{ch}`"),
            self.pos,
            ch.len_utf8(),
        )
    }

    fn number(&mut self) -> Result<(), SyntaxError> {
        let b = self.s.as_bytes();
        let start = self.pos;
        let mut end = start;
        if b[end] == b'0' && b.get(end + 1).is_some_and(|c| *c == b'x' || *c == b'X') {
            end += 2;
            while end < b.len() && (b[end].is_ascii_hexdigit() || b[end] == b'_') {
                end += 1;
            }
            let digits: String = self.s[start + 2..end]
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let v = i64::from_str_radix(&digits, 16);
            return self.finish_int(start, end, v.ok());
        }
        let mut float = false;
        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'_') {
            end += 1;
        }
        if end < b.len() && b[end] == b'.' && !b.get(end + 1).is_some_and(u8::is_ascii_alphabetic) {
            float = true;
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
            let mut e = end + 1;
            if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
                e += 1;
            }
            if e < b.len() && b[e].is_ascii_digit() {
                float = true;
                end = e;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
            }
        }
        let text: String = self.s[start..end].chars().filter(|c| *c != '_').collect();
        if float {
            match text.parse::<f64>() {
                Ok(v) => {
                    self.tok = Tok::Float(v);
                    self.pos = end;
                    self.check_after(end)
                }
                Err(_) => self.err(
                    SyntaxProblem::Number,
                    format!("`{text}` is not a number"),
                    start,
                    end - start,
                ),
            }
        } else {
            let v = text.parse::<i64>().ok();
            self.finish_int(start, end, v)
        }
    }

    fn finish_int(
        &mut self,
        start: usize,
        mut end: usize,
        v: Option<i64>,
    ) -> Result<(), SyntaxError> {
        let b = self.s.as_bytes();
        let Some(v) = v else {
            return self.err(
                SyntaxProblem::Number,
                format!(
                    "`{}` is not an integer that fits in 64 bits",
                    &self.s[start..end]
                ),
                start,
                end - start,
            );
        };
        let mut unsigned = false;
        if end < b.len() && (b[end] == b'u' || b[end] == b'U') {
            unsigned = true;
            end += 1;
        }
        self.tok = Tok::Int(v, unsigned);
        self.pos = end;
        self.check_after(end)
    }

    fn check_after(&mut self, end: usize) -> Result<(), SyntaxError> {
        let b = self.s.as_bytes();
        if end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_' || b[end] == b'.') {
            let mut e = end;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'.') {
                e += 1;
            }
            return self.err(
                SyntaxProblem::Number,
                format!(
                    "`{}` is not a number: write a space or an operator after a literal",
                    &self.s[self.start..e]
                ),
                self.start,
                e - self.start,
            );
        }
        Ok(())
    }
}

/// Deepest nesting of brackets and operators an expression may have.
pub const MAX_DEPTH: usize = 64;

/// Most operations on any path from the root of an expression's tree to a leaf. A chain
/// `a + b + c + …` is parsed without nesting but makes a tree as deep as it is long, which
/// everything after the parser walks recursively.
pub const MAX_HEIGHT: usize = 256;

struct Parser<'a> {
    lx: Lexer<'a>,
    depth: usize,
    /// The height of the node the last parsing function returned.
    height: usize,
}

/// Parses one expression.
pub fn parse(s: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        lx: Lexer::new(s)?,
        depth: 0,
        height: 0,
    };
    if p.lx.tok == Tok::End {
        return p.lx.err(
            SyntaxProblem::Empty,
            "empty expression: write a value here",
            0,
            s.len(),
        );
    }
    let n = p.expr()?;
    if p.lx.tok != Tok::End {
        let at = p.lx.start;
        return p.lx.err(
            SyntaxProblem::Trailing,
            format!("unexpected `{}` after the expression", p.describe()),
            at,
            p.lx.pos - at,
        );
    }
    Ok(n)
}

impl Parser<'_> {
    fn describe(&self) -> String {
        match &self.lx.tok {
            Tok::Int(v, _) => v.to_string(),
            Tok::Float(v) => v.to_string(),
            Tok::Ident(s) => s.clone(),
            Tok::Punct(p) => (*p).to_owned(),
            Tok::End => "end of expression".to_owned(),
        }
    }

    fn eat(&mut self, p: &str) -> Result<bool, SyntaxError> {
        if self.lx.tok == Tok::Punct(PUNCTS.iter().find(|q| **q == p).copied().unwrap_or("")) {
            self.lx.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, p: &str, what: &str) -> Result<(), SyntaxError> {
        if !self.eat(p)? {
            let at = self.lx.start;
            let found = self.describe();
            return self.lx.err(
                SyntaxProblem::Expected,
                format!("expected `{p}` {what}, found `{found}`"),
                at,
                (self.lx.pos - at).max(1),
            );
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.lx.err(
                SyntaxProblem::TooDeep,
                format!("expression nested more than {MAX_DEPTH} deep: split it with Let"),
                self.lx.start,
                1,
            );
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node, SyntaxError> {
        self.enter()?;
        let c = self.binary(1)?;
        let r = if self.eat("?")? {
            let hc = self.height;
            let a = self.expr()?;
            let ha = self.height;
            self.expect(":", "in `c ? a : b`")?;
            let b = self.expr()?;
            self.height = 1 + hc.max(ha).max(self.height);
            let (start, end) = (c.start, b.end);
            Node {
                kind: Kind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                start,
                end,
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    fn binop(&self) -> Option<BinOp> {
        use BinOp::*;
        let Tok::Punct(p) = self.lx.tok else {
            return None;
        };
        Some(match p {
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "&" => And,
            "|" => Or,
            "^" => Xor,
            "<<" => Shl,
            ">>" => Shr,
            "==" => Eq,
            "!=" => Ne,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            "&&" => LAnd,
            "||" => LOr,
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8) -> Result<Node, SyntaxError> {
        let mut lhs = self.unary()?;
        let mut height = self.height;
        while let Some(op) = self.binop() {
            if op.prec() < min {
                break;
            }
            let at = self.lx.start;
            self.lx.bump()?;
            self.enter()?;
            let rhs = self.binary(op.prec() + 1)?;
            self.depth -= 1;
            height = 1 + height.max(self.height);
            if height > MAX_HEIGHT {
                return self.lx.err(
                    SyntaxProblem::TooDeep,
                    format!(
                        "expression more than {MAX_HEIGHT} operations deep (each operator of \
                         a chain like `a + b + c` counts): split it with Let"
                    ),
                    at,
                    op.symbol().len(),
                );
            }
            let (start, end) = (lhs.start, rhs.end);
            lhs = Node {
                kind: Kind::Binary(op, Box::new(lhs), Box::new(rhs)),
                start,
                end,
            };
        }
        self.height = height;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Node, SyntaxError> {
        let start = self.lx.start;
        let op = match self.lx.tok {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("+") => None,
            _ => return self.primary(),
        };
        self.lx.bump()?;
        self.enter()?;
        let inner = self.unary()?;
        self.depth -= 1;
        self.height += op.is_some() as usize;
        let end = inner.end;
        Ok(match op {
            Some(op) => Node {
                kind: Kind::Unary(op, Box::new(inner)),
                start,
                end,
            },
            None => inner,
        })
    }

    fn primary(&mut self) -> Result<Node, SyntaxError> {
        let start = self.lx.start;
        match self.lx.tok.clone() {
            Tok::Int(value, unsigned) => {
                self.lx.bump()?;
                self.height = 0;
                Ok(Node {
                    kind: Kind::Int { value, unsigned },
                    start,
                    end: self.prev_end(),
                })
            }
            Tok::Float(v) => {
                self.lx.bump()?;
                self.height = 0;
                Ok(Node {
                    kind: Kind::Float(v),
                    start,
                    end: self.prev_end(),
                })
            }
            Tok::Punct("(") => {
                self.lx.bump()?;
                let mut n = self.expr()?;
                self.expect(")", "to close `(`")?;
                n.start = start;
                n.end = self.prev_end();
                Ok(n)
            }
            Tok::Ident(name) => {
                self.lx.bump()?;
                if self.lx.tok == Tok::Punct("(") {
                    self.lx.bump()?;
                    let mut args = Vec::new();
                    let mut height = 0;
                    if !self.eat(")")? {
                        loop {
                            args.push(self.expr()?);
                            height = height.max(self.height + 1);
                            if self.eat(")")? {
                                break;
                            }
                            self.expect(",", "between arguments")?;
                        }
                    }
                    self.height = height;
                    return Ok(Node {
                        kind: Kind::Call(name, args),
                        start,
                        end: self.prev_end(),
                    });
                }
                let mut idx = Vec::new();
                let mut height = 0;
                while self.eat("[")? {
                    idx.push(self.expr()?);
                    height = height.max(self.height + 1);
                    self.expect("]", "to close `[`")?;
                }
                self.height = height;
                let end = self.prev_end();
                Ok(Node {
                    kind: if idx.is_empty() {
                        Kind::Name(name)
                    } else {
                        Kind::Index(name, idx)
                    },
                    start,
                    end,
                })
            }
            _ => {
                let found = self.describe();
                self.lx.err(
                    SyntaxProblem::Value,
                    format!("expected a value, found `{found}`"),
                    start,
                    (self.lx.pos - start).max(1),
                )
            }
        }
    }

    /// End offset of the last token consumed (before any whitespace).
    fn prev_end(&self) -> usize {
        let s = &self.lx.s[..self.lx.start];
        s.trim_end().len()
    }
}

/// If `n` is `permutation(…)`: `Some(Some(name))` for one buffer name, `Some(None)` for any
/// other argument list (a mistake the loader reports); `None` for an ordinary reference.
pub fn permutation_source(n: &Node) -> Option<Option<&str>> {
    let Kind::Call(f, args) = &n.kind else {
        return None;
    };
    if f != "permutation" {
        return None;
    }
    Some(match args.as_slice() {
        [Node {
            kind: Kind::Name(b),
            ..
        }] => Some(b.as_str()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(n: &Node) -> String {
        match &n.kind {
            Kind::Int { value, .. } => value.to_string(),
            Kind::Float(v) => format!("{v:?}"),
            Kind::Name(s) => s.clone(),
            Kind::Index(s, ix) => {
                let mut o = s.clone();
                for i in ix {
                    o += &format!("[{}]", show(i));
                }
                o
            }
            Kind::Call(f, a) => {
                format!("{f}({})", a.iter().map(show).collect::<Vec<_>>().join(", "))
            }
            Kind::Unary(op, a) => format!("({op:?} {})", show(a)),
            Kind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
            Kind::Cond(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
        }
    }

    #[test]
    fn precedence() {
        assert_eq!(show(&parse("1 + 2 * 3").unwrap()), "(1 + (2 * 3))");
        assert_eq!(show(&parse("a << 1 + 2").unwrap()), "(a << (1 + 2))");
        assert_eq!(show(&parse("a & b == c").unwrap()), "(a & (b == c))");
        assert_eq!(show(&parse("a - b - c").unwrap()), "((a - b) - c)");
        assert_eq!(
            show(&parse("t[r][c ^ r] + min(x, -y)").unwrap()),
            "(t[r][(c ^ r)] + min(x, (Neg y)))"
        );
        assert_eq!(
            show(&parse("c ? a : b ? d : e").unwrap()),
            "(c ? a : (b ? d : e))"
        );
        assert_eq!(
            show(&parse("tid.x*32+ctaid.y").unwrap()),
            "((tid.x * 32) + ctaid.y)"
        );
        assert_eq!(
            show(&parse("1.5e3 + 0x10 + 3u").unwrap()),
            "((1500.0 + 16) + 3)"
        );
    }

    #[test]
    fn spans() {
        let n = parse("a + (b*c)").unwrap();
        let Kind::Binary(_, _, r) = &n.kind else {
            panic!()
        };
        assert_eq!((r.start, r.end), (4, 9));
    }

    #[test]
    fn errors() {
        for (s, at) in [
            ("", 0),
            ("1 +", 3),
            ("(1", 2),
            ("a $ b", 2),
            ("3x", 0),
            ("a b", 2),
            ("f(1,", 4),
        ] {
            let e = parse(s).unwrap_err();
            assert_eq!(e.at, at, "{s}: {e}");
        }
        let deep = "(".repeat(200) + "1" + &")".repeat(200);
        assert!(parse(&deep).is_err());
    }

    /// A chain of operators makes a tree as deep as it is long: at most [`MAX_HEIGHT`].
    #[test]
    fn long_chains_are_refused() {
        let chain = |n: usize| vec!["x"; n + 1].join(" + ");
        assert!(parse(&chain(MAX_HEIGHT)).is_ok());
        let e = parse(&chain(MAX_HEIGHT + 1)).unwrap_err();
        assert!(e.message.contains("operations deep"), "{e}");
        // The error is at the operator that goes too deep.
        assert_eq!(e.at, (MAX_HEIGHT + 1) * 4 - 2);
        // Chains inside brackets, arguments and indices count with the outer ones.
        let inner = format!("({})", chain(200));
        assert!(parse(&format!("{inner} * {inner}")).is_ok());
        assert!(parse(&format!("{inner} * {}", chain(60))).is_err());
        assert!(parse(&format!("min({inner}, 1) + {}", chain(56))).is_err());
        assert!(parse(&format!("a[{inner}] - {}", chain(56))).is_err());
        assert!(parse(&format!("-{inner} - {}", chain(56))).is_err());
        assert!(parse(&format!("(c ? {inner} : 1) + {}", chain(56))).is_err());
        // A million-term chain is refused quickly, without deep recursion.
        assert!(parse(&chain(1_000_000)).is_err());
    }
}
