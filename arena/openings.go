package arena

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// Opening is where a pair of games starts: a position and the moves played
// from it before the players take over.
type Opening struct {
	FEN   string
	Moves []rules.Move
	// Name says what it is ("janggi masangsangma,sangmamasang +2", …).
	Name string
}

// MovesText is the opening's moves, space-separated, ranks 1–10.
func (o Opening) MovesText() string { return gamerec.MovesText(o.Moves) }

// Game sets the opening up under rs.
func (o Opening) Game(rs *rules.RuleSet) (*rules.Game, error) {
	g, err := rules.NewGame(rs, o.FEN)
	if err != nil {
		return nil, fmt.Errorf("arena: opening %s: %w", o.Name, err)
	}
	for i, m := range o.Moves {
		if !g.IsLegal(m) || g.Result().Over() {
			return nil, fmt.Errorf("arena: opening %s: move %d (%s) cannot be played", o.Name, i+1, m)
		}
		g.Play(m)
	}
	if g.Result().Over() {
		return nil, fmt.Errorf("arena: opening %s: the game is over after it", o.Name)
	}
	return g, nil
}

// RandomOpenings makes n distinct openings for rs: the start position (for
// janggi, the 16 setup pairs in turn) followed by plies random legal moves,
// drawn from seed. Random plies are what make games between deterministic
// players differ; both games of a pair start from the same one, so their
// bias cancels out.
func RandomOpenings(rs *rules.RuleSet, n, plies int, seed uint64) ([]Opening, error) {
	if n < 1 || plies < 0 {
		return nil, fmt.Errorf("arena: %d openings of %d plies", n, plies)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e))
	seen := map[string]bool{}
	var out []Opening
	var legal []rules.Move
	for attempts := 0; len(out) < n; attempts++ {
		if attempts > 100*n+1000 {
			return out, fmt.Errorf("arena: only %d distinct openings of %d plies found for %s, %d wanted", len(out), plies, rs.Name, n)
		}
		fen, name := rs.StartFEN(), rs.Name
		if rs.Game == rules.Janggi {
			i := len(out) % 16
			cho, han := rules.JanggiSetup(i/4), rules.JanggiSetup(i%4)
			fen, name = rules.JanggiSetupFEN(cho, han), "janggi "+cho.String()+","+han.String()
		}
		g, err := rules.NewGame(rs, fen)
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		var moves []rules.Move
		for range plies {
			legal = g.LegalMoves(legal[:0])
			// No pass in an opening: it would only waste the pair.
			legal = removePasses(legal)
			if len(legal) == 0 || g.Result().Over() {
				break
			}
			m := legal[rng.IntN(len(legal))]
			g.Play(m)
			moves = append(moves, m)
		}
		if len(moves) < plies || g.Result().Over() {
			continue
		}
		o := Opening{FEN: fen, Moves: moves}
		key := fen + "|" + o.MovesText()
		if seen[key] {
			continue
		}
		seen[key] = true
		o.Name = strings.TrimSpace(fmt.Sprintf("%s %s", name, o.MovesText()))
		out = append(out, o)
	}
	return out, nil
}

func removePasses(ms []rules.Move) []rules.Move {
	out := ms[:0]
	for _, m := range ms {
		if !m.IsPass() {
			out = append(out, m)
		}
	}
	return out
}
