package notation

import "github.com/palace-chess/palace/rules"

// ParseICCS resolves an ICCS move (files a–i from Red's left, ranks 0–9
// from Red's side: h2e2; also H2-E2 and full-width forms) to the legal
// move of g's position it names.
func ParseICCS(g *rules.Game, text string) (rules.Move, error) {
	var buf [12]byte
	t, ok := foldASCII(buf[:0], text)
	if ok {
		t = trimCheck(t)
	}
	if !ok || !isICCS(t) {
		return rules.NoMove, &Error{Notation: ICCS, Text: text, Err: ErrSyntax, Detail: "want a file a–i and a rank 0–9, twice (h2e2)"}
	}
	if len(t) == 5 {
		t = append(t[:2], t[3:]...)
	}
	from := rules.SquareAt(int(lower(t[0])-'a'), int(t[1]-'0'))
	to := rules.SquareAt(int(lower(t[2])-'a'), int(t[3]-'0'))
	if m := rules.NewMove(from, to); m != rules.NoMove && g.IsLegal(m) {
		return m, nil
	}
	return rules.NoMove, &Error{Notation: ICCS, Text: text, Err: ErrNoMatch, Detail: "illegal in " + g.Position().FEN()}
}

// AppendICCS appends m in ICCS (h2e2).
func AppendICCS(dst []byte, m rules.Move) []byte { return m.AppendText(dst, rules.Ranks0) }
