//! Whole-number arithmetic in option values: `bs=$pagesize*2`,
//! `iodepth=($ncpus+1)*4`, `size=(1024*1024)`.
//!
//! fio documents `+ - * / % ^` with parentheses, and evaluates an expression
//! that holds one of its keywords as whole numbers (3.33 hands it to `bc`:
//! `$ncpus/3` is 0 on two CPUs, and a unit inside, as in `$ncpus*4k`, is a
//! syntax error). This is a small recursive-descent parser with the usual
//! precedence (`^` above `* / %`, to the right; unary minus above `^`, as in
//! bc), checked arithmetic and a nesting limit, so hostile input gets an
//! error, never an overflow or a stack overflow.

/// Deeper nesting than this is refused (it is never a real job file).
const MAX_DEPTH: usize = 64;

/// Evaluates `text`; the error says what is wrong, for the user.
pub(crate) fn eval(text: &str) -> Result<i64, ArithError> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
        depth: 0,
    };
    let value = p.expr()?;
    match p.tokens.get(p.pos) {
        None => Ok(value),
        Some(t) => Err(ArithError::Unexpected(t.to_string())),
    }
}

/// What is wrong with an expression, for the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArithError {
    #[error("unexpected '{0}' in the expression")]
    Unexpected(String),
    #[error("{0} is too large")]
    TooLarge(String),
    #[error("'{0}' cannot appear in an expression: use whole numbers and + - * / % ^ ( )")]
    BadChar(char),
    #[error("the expression is empty")]
    Empty,
    #[error("the expression nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("the result is too large")]
    Overflow,
    #[error("division by zero")]
    DivisionByZero,
    #[error("a negative or huge exponent")]
    BadExponent,
    #[error("a '(' is not closed")]
    Unclosed,
    #[error("expected a number, found '{0}'")]
    ExpectedNumber(String),
    #[error("the expression ends too early")]
    EndsEarly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Num(i64),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Tok>, ArithError> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut end = i;
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                end = j + 1;
                chars.next();
            }
            let digits = &text[i..end];
            let n = digits
                .parse::<i64>()
                .map_err(|_| ArithError::TooLarge(digits.to_string()))?;
            tokens.push(Tok::Num(n));
        } else if "+-*/%^()".contains(c) {
            tokens.push(Tok::Op(c));
            chars.next();
        } else {
            return Err(ArithError::BadChar(c));
        }
    }
    if tokens.is_empty() {
        return Err(ArithError::Empty);
    }
    Ok(tokens)
}

struct Parser<'a> {
    tokens: &'a [Tok],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<char> {
        match self.tokens.get(self.pos) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }

    fn descend(&mut self) -> Result<(), ArithError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ArithError::TooDeep);
        }
        Ok(())
    }

    /// expr := term (('+' | '-') term)*
    fn expr(&mut self) -> Result<i64, ArithError> {
        self.descend()?;
        let mut value = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek_op() {
            self.pos += 1;
            let rhs = self.term()?;
            value = match op {
                '+' => value.checked_add(rhs),
                _ => value.checked_sub(rhs),
            }
            .ok_or(ArithError::Overflow)?;
        }
        self.depth -= 1;
        Ok(value)
    }

    /// term := power (('*' | '/' | '%') power)*
    fn term(&mut self) -> Result<i64, ArithError> {
        let mut value = self.power()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek_op() {
            self.pos += 1;
            let rhs = self.power()?;
            if op != '*' && rhs == 0 {
                return Err(ArithError::DivisionByZero);
            }
            value = match op {
                '*' => value.checked_mul(rhs),
                '/' => value.checked_div(rhs),
                _ => value.checked_rem(rhs),
            }
            .ok_or(ArithError::Overflow)?;
        }
        Ok(value)
    }

    /// power := unary ('^' power)?   (right-associative)
    fn power(&mut self) -> Result<i64, ArithError> {
        let base = self.unary()?;
        if self.peek_op() != Some('^') {
            return Ok(base);
        }
        self.pos += 1;
        self.descend()?;
        let exp = self.power()?;
        self.depth -= 1;
        let exp = u32::try_from(exp).map_err(|_| ArithError::BadExponent)?;
        base.checked_pow(exp).ok_or(ArithError::Overflow)
    }

    /// unary := ('-' | '+') unary | primary
    fn unary(&mut self) -> Result<i64, ArithError> {
        match self.peek_op() {
            Some(op @ ('-' | '+')) => {
                self.pos += 1;
                self.descend()?;
                let v = self.unary()?;
                self.depth -= 1;
                if op == '-' {
                    v.checked_neg().ok_or(ArithError::Overflow)
                } else {
                    Ok(v)
                }
            }
            _ => self.primary(),
        }
    }

    /// primary := number | '(' expr ')'
    fn primary(&mut self) -> Result<i64, ArithError> {
        match self.tokens.get(self.pos) {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(*n)
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let v = self.expr()?;
                if self.peek_op() != Some(')') {
                    return Err(ArithError::Unclosed);
                }
                self.pos += 1;
                Ok(v)
            }
            Some(t) => Err(ArithError::ExpectedNumber(t.to_string())),
            None => Err(ArithError::EndsEarly),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::eval;

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval("4096*2"), Ok(8192));
        assert_eq!(eval("2 + 3 * 4"), Ok(14));
        assert_eq!(eval("(2 + 3) * 4"), Ok(20));
        assert_eq!(eval("2^3^2"), Ok(512));
        // Unary minus binds tighter than ^, as in bc (which fio 3.33 uses).
        assert_eq!(eval("-2^2"), Ok(4));
        assert_eq!(eval("10 - 4 - 3"), Ok(3));
        assert_eq!(eval("7/2"), Ok(3));
        assert_eq!(eval("2/3"), Ok(0));
        assert_eq!(eval("7%4"), Ok(3));
        assert_eq!(eval("-5"), Ok(-5));
    }

    #[test]
    fn errors_not_panics() {
        let says = |text: &str| eval(text).unwrap_err().to_string();
        assert!(says("1/0").contains("division by zero"));
        assert!(says("1%0").contains("division by zero"));
        assert!(says("9223372036854775807+1").contains("too large"));
        assert!(says("99999999999999999999").contains("too large"));
        assert!(eval("2^-1").is_err());
        assert!(says("4k*2").contains("'k' cannot appear"));
        assert!(says("(1+2").contains("not closed"));
        assert!(says("1+").contains("ends too early"));
        assert!(says("1 2").contains("unexpected '2'"));
        assert!(eval("").is_err());
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(says(&deep).contains("nests deeper"));
        assert!(says(&"-".repeat(10_000)).contains("nests deeper"));
        assert!(eval(&"2^".repeat(10_000)).is_err());
        assert_eq!(eval("-9223372036854775807-1"), Ok(i64::MIN));
        assert!(eval("-9223372036854775807-1/-1").is_ok());
        assert!(eval("(-9223372036854775807-1)/-1").is_err());
    }
}
