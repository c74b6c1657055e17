//! PTX text → statements of one `.entry`: directives, labels and instructions, each with its
//! byte offset in the file and the `.loc` source line in force.

/// One statement of a kernel's body.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Byte offset in the PTX text.
    pub off: usize,
    /// `.loc` line and column in force (0 when none).
    pub loc: (u32, u32),
    /// What it is.
    pub kind: StmtKind,
}

/// Statement kinds.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `NAME:`
    Label(String),
    /// An instruction: guard (`@%p` / `@!%p`), opcode (`ld.shared.f32`) and operand texts.
    Inst {
        guard: Option<(String, bool)>,
        op: String,
        args: Vec<String>,
    },
    /// A directive inside the body (`.reg`, `.shared`, …): its words.
    Directive(Vec<String>),
}

/// A kernel entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its (mangled) name.
    pub name: String,
    /// Byte offset of the name.
    pub off: usize,
    /// Parameters: name and type (`.u64`, `.u32`, …).
    pub params: Vec<(String, String)>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Its `.reqntid` and `.maxntid` (Triton's `num_warps`, CUDA's `__launch_bounds__`): the
    /// directive's offset, name and sizes.
    pub bounds: Vec<(usize, String, Vec<u64>)>,
}

/// A device function (`.func`): defined with a body, or only declared (a prototype, or
/// `.extern`, such as `vprintf`). Calls to it are inlined (`inline.rs`).
#[derive(Clone, Debug)]
pub struct Func {
    /// Its (mangled) name.
    pub name: String,
    /// Byte offset of the name.
    pub off: usize,
    /// Return values (`.param .b32 func_retval0`): name and type.
    pub rets: Vec<(String, String)>,
    /// Parameters: name and type.
    pub params: Vec<(String, String)>,
    /// The body; `None` for a declaration without one.
    pub body: Option<Vec<Stmt>>,
    /// Declared `.extern`.
    pub external: bool,
}

/// A parsed module: its entries, module-level `.shared` declarations and `.file` names.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The kernels.
    pub entries: Vec<Entry>,
    /// The device functions (`.func`), declared or defined, in order.
    pub funcs: Vec<Func>,
    /// Module-level directives (`.shared`, `.global`, …) with their offsets.
    pub globals: Vec<(usize, Vec<String>)>,
    /// `.file N "name"`.
    pub files: Vec<(u32, String)>,
}

/// Replaces comments with spaces (offsets stay valid).
fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        if in_str {
            if b[i] == b'"' {
                in_str = false;
            }
            i += 1;
        } else if b[i] == b'"' {
            in_str = true;
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            while i < b.len() && !b[i..].starts_with(b"*/") {
                if b[i] != b'\n' {
                    out[i] = b' ';
                }
                i += 1;
            }
            for c in &mut out[i..(i + 2).min(b.len())] {
                *c = b' ';
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Splits operands at top-level commas (not inside `{}` or `[]`).
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_owned());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_owned());
    }
    out
}

/// `(.param .b64 a, .param .align 8 .b8 b[16])`'s inside → (name, type) of each.
fn param_list(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|p| {
            let words: Vec<&str> = p.split_whitespace().collect();
            let name = words.last()?.split('[').next()?.to_owned();
            let ty = words
                .iter()
                .find(|w| {
                    w.starts_with('.')
                        && *w != &".param"
                        && *w != &".reg"
                        && !w.starts_with(".align")
                        && !w.starts_with(".ptr")
                })
                .copied()
                .unwrap_or(".b32")
                .to_owned();
            Some((name, ty))
        })
        .collect()
}

/// A `.func` header from `i` (at its first qualifier): `[.visible|.weak|.extern] .func
/// [(rets)] name [(params)]` then `;` (a declaration) or `{` (a body). Returns the function,
/// where parsing goes on (the `{`, or past the `;`) and whether a body follows.
fn func_header(text: &str, i: usize) -> Result<(Func, usize, bool), (usize, String)> {
    let b = text.as_bytes();
    let at = i + text[i..].find(".func").unwrap_or(0);
    let external = text[i..at].contains(".extern");
    let mut k = at + ".func".len();
    let skip = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        k
    };
    // A parenthesised list from `k` (at `(`): its inside and the offset past `)`.
    let list = |k: usize| -> Result<(&str, usize), (usize, String)> {
        let close = text[k..]
            .find(')')
            .map(|e| k + e)
            .ok_or((k, "unclosed `(` in a `.func` header".to_owned()))?;
        let inside = &text[k + 1..close];
        // A `)` found only past the next declaration: this `(` is not closed (it would
        // swallow the kernel after it, reported as "no kernel" later).
        if inside.contains(['{', '}', ';']) || inside.contains(".entry") || inside.contains(".func")
        {
            return Err((
                k,
                "unclosed `(` in a `.func` header: close the list with `)`".to_owned(),
            ));
        }
        Ok((inside, close + 1))
    };
    k = skip(k);
    let mut rets = Vec::new();
    if b.get(k) == Some(&b'(') {
        let (inside, next) = list(k)?;
        rets = param_list(inside);
        k = skip(next);
    }
    let name_end = text[k..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.".contains(c)))
        .map_or(text.len(), |e| k + e);
    let name = text[k..name_end].to_owned();
    if name.is_empty() {
        return Err((at, "a `.func` header without a name".into()));
    }
    let off = k;
    k = skip(name_end);
    let mut params = Vec::new();
    if b.get(k) == Some(&b'(') {
        let (inside, next) = list(k)?;
        params = param_list(inside);
        k = next;
    }
    // Attributes (`.noreturn`) up to the body or the `;`.
    let end = text[k..]
        .find(['{', ';'])
        .map(|e| k + e)
        .ok_or((off, format!("`.func {name}` has neither a body nor a `;`")))?;
    let body = b[end] == b'{';
    let f = Func {
        name,
        off,
        rets,
        params,
        body: None,
        external,
    };
    Ok((f, if body { end } else { end + 1 }, body))
}

/// What is wrong with the array sizes of declaration `s` (`.global .u32 g[;`, at module level or
/// in a function), if anything: each `[` before an initialiser closes, around a size or nothing.
/// Statements that declare no variable in a state space pass.
fn bad_dims(s: &str) -> Option<String> {
    let decl = s.split('=').next().unwrap_or(s);
    let space = |w: &str| matches!(w, ".global" | ".shared" | ".const" | ".local");
    if decl.contains('"') || !decl.split_whitespace().any(space) {
        return None;
    }
    let mut rest = decl;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            return Some(format!("`{}`: a `[` without its `]`", decl.trim()));
        };
        let size = after[..close].trim();
        if !size.is_empty() && !size.chars().all(|c| c.is_ascii_digit()) {
            return Some(format!(
                "`{}`: the array size `{size}` is not a number",
                decl.trim()
            ));
        }
        rest = &after[close + 1..];
    }
    rest.contains(']')
        .then(|| format!("`{}`: a `]` without its `[`", decl.trim()))
}

/// Parses a module. Errors: (offset, message).
pub fn parse(src: &str) -> Result<Module, (usize, String)> {
    let text = strip_comments(src);
    let mut m = Module::default();
    let mut i = 0;
    let b = text.as_bytes();
    let mut loc = (0, 0);
    // The file of the module's first `.loc`: the compiled source (NVRTC's file 1); lines of
    // other files (headers) keep the source line in force.
    let mut main_file = None;
    let mut cur: Option<Entry> = None;
    // The function whose body `cur` holds, when it is a `.func`.
    let mut cur_func: Option<Func> = None;
    let mut in_params = false;
    let mut depth = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c == b'{' {
            depth += 1;
            in_params = false;
            i += 1;
            continue;
        }
        if c == b'}' {
            depth -= 1;
            if depth == 0 {
                if let Some(e) = cur.take() {
                    match cur_func.take() {
                        Some(mut f) => {
                            f.body = Some(e.body);
                            m.funcs.push(f);
                        }
                        None => m.entries.push(e),
                    }
                }
            }
            i += 1;
            continue;
        }
        if c == b')' && in_params {
            i += 1;
            continue;
        }
        // A statement runs to `;`, or a label to `:`, or a `.loc`/`.file` line to its end.
        let line_end = text[i..].find('\n').map_or(text.len(), |e| i + e);
        let line = &text[i..line_end];
        // (By the first word: `.local` is a declaration, not a `.loc` line.)
        if matches!(
            line.split_whitespace().next(),
            Some(".loc" | ".file" | ".version" | ".target" | ".address_size" | ".section")
        ) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == ".loc" {
                // `.loc file line col[, function_name …, inlined_at file line col]`
                // (An inlined line counts as its `inlined_at` place.)
                let place = line.find("inlined_at").map_or(line, |k| &line[k + 10..]);
                let n: Vec<u32> = place
                    .split(|c: char| c.is_whitespace() || c == ',')
                    .filter_map(|w| w.parse().ok())
                    .collect();
                let file = n.first().copied().unwrap_or(0);
                if *main_file.get_or_insert(file) == file {
                    loc = (
                        n.get(1).copied().unwrap_or(0),
                        n.get(2).copied().unwrap_or(0),
                    );
                }
            } else if words[0] == ".file" {
                if let (Some(n), Some(k)) =
                    (words.get(1).and_then(|w| w.parse().ok()), line.find('"'))
                {
                    let name = line[k + 1..].split('"').next().unwrap_or("").to_owned();
                    m.files.push((n, name));
                }
            } else if words[0] == ".section" {
                // Skip a whole `.section { … }` (debug information).
                if let Some(open) = text[i..].find('{') {
                    let mut d = 0;
                    let mut k = i + open;
                    while k < b.len() {
                        if b[k] == b'{' {
                            d += 1;
                        } else if b[k] == b'}' {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        k += 1;
                    }
                    i = k + 1;
                    continue;
                }
            }
            i = line_end;
            continue;
        }
        // Performance directives between an entry's parameters and its body (`.maxntid 256, 1,
        // 1` from `__launch_bounds__`): skipped, up to the line's end or the body's `{`;
        // `.reqntid` and `.maxntid` kept, to check the launch's block against.
        if depth == 0
            && cur.is_some()
            && [
                ".maxntid",
                ".reqntid",
                ".minnctapersm",
                ".maxnctapersm",
                ".maxnreg",
                ".maxclusterrank",
                ".reqnctapercluster",
                ".explicitcluster",
                ".noreturn",
            ]
            .iter()
            .any(|d| line.starts_with(d))
        {
            let end = line.find('{').unwrap_or(line.len());
            let mut words = line[..end]
                .split([' ', '\t', ','])
                .filter(|w| !w.is_empty());
            if let (Some(d @ (".reqntid" | ".maxntid")), Some(e)) = (words.next(), cur.as_mut()) {
                let sizes = words
                    .map(|w| {
                        w.parse::<u64>()
                            .map_err(|_| (i, format!("`{d}`: bad size `{w}`")))
                    })
                    .collect::<Result<Vec<u64>, _>>()?;
                if sizes.is_empty() || sizes.len() > 3 {
                    return Err((i, format!("`{d}` takes one to three sizes")));
                }
                e.bounds.push((i, d.to_owned(), sizes));
            }
            i = line.find('{').map_or(line_end, |k| i + k);
            continue;
        }
        // Entry header: `.visible .entry NAME(` / `.weak .entry NAME(`
        if depth == 0 && !in_params {
            let end = text[i..]
                .find(['(', ';', '{'])
                .map_or(text.len(), |e| i + e);
            let head = &text[i..end];
            if head.contains(".func") && !head.contains(".entry") {
                let (f, next, body) = func_header(&text, i)?;
                i = next;
                if body {
                    cur = Some(Entry {
                        name: f.name.clone(),
                        off: f.off,
                        params: Vec::new(),
                        body: Vec::new(),
                        bounds: Vec::new(),
                    });
                    cur_func = Some(f);
                } else {
                    m.funcs.push(f);
                }
                continue;
            }
            if head.contains(".entry") {
                let name = head.split_whitespace().last().unwrap_or("").to_owned();
                let off = i + head.rfind(&name).unwrap_or(0);
                cur = Some(Entry {
                    name,
                    off,
                    params: Vec::new(),
                    body: Vec::new(),
                    bounds: Vec::new(),
                });
                in_params = b.get(end) == Some(&b'(');
                i = end + 1;
                continue;
            }
        }
        if in_params {
            let end = text[i..].find([',', ')']).map_or(text.len(), |e| i + e);
            if let Some(bad) = text[i..end].find(['{', '}', ';']) {
                let name = cur.as_ref().map_or("", |e| e.name.as_str());
                return Err((
                    i + bad,
                    format!(
                        "the parameter list of `.entry {name}` is not closed: end it with `)` \
                         before the body"
                    ),
                ));
            }
            let words: Vec<&str> = text[i..end].split_whitespace().collect();
            if let (Some(e), Some(name)) = (cur.as_mut(), words.last()) {
                let ty = words
                    .iter()
                    .find(|w| {
                        w.starts_with('.')
                            && *w != &".param"
                            && !w.starts_with(".align")
                            && !w.starts_with(".ptr")
                    })
                    .copied()
                    .unwrap_or(".u32");
                e.params.push((name.to_string(), ty.to_owned()));
            }
            i = end + 1;
            if b.get(end) == Some(&b')') {
                in_params = false;
            }
            continue;
        }
        // A label?
        let word_end = text[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.%".contains(c)))
            .map_or(text.len(), |e| i + e);
        // (Not `shared::cluster`: a state space's qualifier in an instruction's name.)
        if b.get(word_end) == Some(&b':') && b.get(word_end + 1) != Some(&b':') && depth > 0 {
            if let Some(e) = cur.as_mut() {
                e.body.push(Stmt {
                    off: start,
                    loc,
                    kind: StmtKind::Label(text[i..word_end].to_owned()),
                });
            }
            i = word_end + 1;
            continue;
        }
        let end = text[i..].find(';').map_or(text.len(), |e| i + e);
        let s = text[i..end].trim();
        i = end + 1;
        if let Some(msg) = bad_dims(s) {
            return Err((start, msg));
        }
        if depth == 0 {
            m.globals
                .push((start, s.split_whitespace().map(str::to_owned).collect()));
            continue;
        }
        let Some(e) = cur.as_mut() else { continue };
        if s.starts_with('.') {
            let words = s.split_whitespace().map(str::to_owned).collect();
            e.body.push(Stmt {
                off: start,
                loc,
                kind: StmtKind::Directive(words),
            });
            continue;
        }
        let (guard, rest) = if let Some(r) = s.strip_prefix('@') {
            let (g, rest) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
            let (neg, g) = match g.strip_prefix('!') {
                Some(g) => (true, g),
                None => (false, g),
            };
            (Some((g.to_owned(), neg)), rest.trim())
        } else {
            (None, s)
        };
        let (op, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        e.body.push(Stmt {
            off: start,
            loc,
            kind: StmtKind::Inst {
                guard,
                op: op.to_owned(),
                args: split_args(args),
            },
        });
    }
    Ok(m)
}
