package syntax

import "fmt"

// Token is the kind of a lexical token.
type Token uint8

// The tokens. Keywords follow the punctuation; soft keywords (tool,
// resource) are IDENTs and the parser decides.
const (
	ILLEGAL Token = iota
	EOF
	NEWLINE
	IDENT     // x
	INT       // 123
	FLOAT     // 1.5, 1.5e3
	DEC       // 0.1dec
	STRING    // "abc", 'abc', r"abc"
	TEMPLATE  // "hello {name}"
	DECORATOR // @tool, @mcp.resource

	LPAREN   // (
	RPAREN   // )
	LBRACK   // [
	RBRACK   // ]
	LBRACE   // {
	RBRACE   // }
	COMMA    // ,
	DOT      // .
	COLON    // :
	SEMI     // ;
	QUESTION // ?
	ASSIGN   // =
	EQL      // ==
	NEQ      // !=
	LT       // <
	GT       // >
	LE       // <=
	GE       // >=
	PLUS     // +
	MINUS    // -
	STAR     // *
	SLASH    // /
	PERCENT  // %
	PLUS_EQ  // +=
	MINUS_EQ // -=
	STAR_EQ  // *=
	SLASH_EQ // /=
	FATARROW // =>
	ARROW    // ->
	PIPE     // |>
	BAR      // |
	BANG     // ! (parsed as not, with a warning)
	NOT_IN   // not in (the parser joins the two words)

	keywordStart
	FN
	LET
	MUT
	RETURN
	IF
	ELSE
	WHILE
	LOOP
	FOR
	IN
	BREAK
	CONTINUE
	MATCH
	TRUE
	FALSE
	AND
	OR
	NOT
	IS
	ISNT
	IMPORT
	TYPE
	PUB
	ASYNC
	TO
	keywordEnd
)

var tokenNames = [...]string{
	ILLEGAL:   "illegal token",
	EOF:       "end of file",
	NEWLINE:   "newline",
	IDENT:     "identifier",
	INT:       "integer",
	FLOAT:     "float",
	DEC:       "decimal",
	STRING:    "string",
	TEMPLATE:  "template string",
	DECORATOR: "decorator",
	LPAREN:    "(",
	RPAREN:    ")",
	LBRACK:    "[",
	RBRACK:    "]",
	LBRACE:    "{",
	RBRACE:    "}",
	COMMA:     ",",
	DOT:       ".",
	COLON:     ":",
	SEMI:      ";",
	QUESTION:  "?",
	ASSIGN:    "=",
	EQL:       "==",
	NEQ:       "!=",
	LT:        "<",
	GT:        ">",
	LE:        "<=",
	GE:        ">=",
	PLUS:      "+",
	MINUS:     "-",
	STAR:      "*",
	SLASH:     "/",
	PERCENT:   "%",
	PLUS_EQ:   "+=",
	MINUS_EQ:  "-=",
	STAR_EQ:   "*=",
	SLASH_EQ:  "/=",
	FATARROW:  "=>",
	ARROW:     "->",
	PIPE:      "|>",
	BAR:       "|",
	BANG:      "!",
	NOT_IN:    "not in",
	FN:        "fn",
	LET:       "let",
	MUT:       "mut",
	RETURN:    "return",
	IF:        "if",
	ELSE:      "else",
	WHILE:     "while",
	LOOP:      "loop",
	FOR:       "for",
	IN:        "in",
	BREAK:     "break",
	CONTINUE:  "continue",
	MATCH:     "match",
	TRUE:      "true",
	FALSE:     "false",
	AND:       "and",
	OR:        "or",
	NOT:       "not",
	IS:        "is",
	ISNT:      "isnt",
	IMPORT:    "import",
	TYPE:      "type",
	PUB:       "pub",
	ASYNC:     "async",
	TO:        "to",
}

func (t Token) String() string {
	if int(t) < len(tokenNames) && tokenNames[t] != "" {
		return tokenNames[t]
	}
	return fmt.Sprintf("token(%d)", t)
}

// IsKeyword reports whether t is a reserved word.
func (t Token) IsKeyword() bool { return keywordStart < t && t < keywordEnd }

var keywords = func() map[string]Token {
	m := make(map[string]Token)
	for t := keywordStart + 1; t < keywordEnd; t++ {
		m[tokenNames[t]] = t
	}
	return m
}()

// maxKeywordLen is the length of the longest keyword.
var maxKeywordLen = func() int {
	n := 0
	for k := range keywords {
		n = max(n, len(k))
	}
	return n
}()

// lookupKeyword returns the keyword token of an identifier, or IDENT.
// Keywords are lowercase words of two letters or more, which many
// identifiers are not: those skip the map.
func lookupKeyword(name string) Token {
	if len(name) < 2 || len(name) > maxKeywordLen || name[0] < 'a' || name[0] > 'z' {
		return IDENT
	}
	if kw, ok := keywords[name]; ok {
		return kw
	}
	return IDENT
}

// Pos is a position in a file: 1-based line and 1-based byte column within
// the line. The zero Pos is unknown.
type Pos struct {
	Line, Col int32
}

// MakePos returns the position line:col.
func MakePos(line, col int) Pos { return Pos{int32(line), int32(col)} }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }
