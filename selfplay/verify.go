package selfplay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/rules"
)

// VerifyReport is what Verify checked and found.
type VerifyReport struct {
	Shards   int   // shards the manifest lists
	Records  int64 // records they hold
	Games    int   // game records replayed
	Problems []datasets.Problem
}

// Verify checks a self-play directory: everything datasets.Verify checks
// (each listed shard's bytes, header, blocks and records, unlisted shards),
// and for each listed shard its game records: readable, under the shard's
// rule set and network, every game replaying through rules.Game to its
// stored result, and the shard's records exactly those of its games (the
// same ids in the same order, one record per ply, each with the game's
// position, move and result). It also reports a game id held by two
// shards and game records without a listed shard. A directory with no
// game records at all is checked as plain shards. The error is for a
// directory or manifest that cannot be read.
func Verify(dir string) (*VerifyReport, error) {
	problems, err := datasets.Verify(dir)
	if err != nil {
		return nil, err
	}
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{Shards: len(m.Shards), Problems: problems}
	bad := map[string]bool{}
	for _, p := range problems {
		bad[p.Name] = true
	}
	listed := map[string]bool{}
	anyGames := false
	for _, s := range m.Shards {
		listed[s.Name] = true
		rep.Records += s.Records
		if _, err := os.Stat(GamesPath(filepath.Join(dir, s.Name))); err == nil {
			anyGames = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), GamesSuffix); ok && !strings.HasPrefix(name, ".") && !listed[name+ShardSuffix] {
			rep.Problems = append(rep.Problems, datasets.Problem{Name: e.Name(),
				Err: errors.New("game records of a shard the manifest does not list (a crash's debris: the next self-play run removes it)")})
		}
	}
	if !anyGames {
		return rep, nil
	}
	where := map[uint64]string{}
	for _, s := range m.Shards {
		gname := filepath.Base(GamesPath(s.Name))
		gf, err := gamerec.Read(filepath.Join(dir, gname))
		if err != nil {
			rep.Problems = append(rep.Problems, datasets.Problem{Name: gname, Err: err})
			continue
		}
		problem := func(err error) { rep.Problems = append(rep.Problems, datasets.Problem{Name: gname, Err: err}) }
		if gf.Header.Shard != s.Name {
			problem(fmt.Errorf("%w: written for shard %s", gamerec.ErrGames, gf.Header.Shard))
		}
		rs := gf.SelfPlayRuleSet()
		if name := ruleSetName(gf); name != s.RuleSet {
			problem(fmt.Errorf("%w: rule set %s, the shard's is %s", gamerec.ErrGames, name, s.RuleSet))
		}
		for i := range gf.Games {
			g := &gf.Games[i]
			if prev, dup := where[g.ID]; dup {
				problem(fmt.Errorf("%w: game %d is also in %s", gamerec.ErrGames, g.ID, prev))
			}
			where[g.ID] = gname
			if rs == nil {
				break // reported: the file has no one rule set to replay under
			}
			if _, err := g.ReplayStrict(rs); err != nil {
				problem(err)
			}
			rep.Games++
		}
		if !bad[s.Name] {
			if err := matchRecords(filepath.Join(dir, s.Name), gf); err != nil {
				problem(fmt.Errorf("%w: %v", gamerec.ErrGames, err))
			}
		}
	}
	return rep, nil
}

// ruleSetName names a self-play games file's rule set; a file of none or
// several says so.
func ruleSetName(gf *gamerec.File) string {
	if rs := gf.SelfPlayRuleSet(); rs != nil {
		return rs.String()
	}
	return fmt.Sprintf("(%d rule sets)", len(gf.Header.Rules))
}

// scoreOutcome reads a result's score (1-0, 0-1, 1/2-1/2).
func scoreOutcome(score string) rules.Outcome {
	switch score {
	case "1-0":
		return rules.WhiteWins
	case "0-1":
		return rules.BlackWins
	case "1/2-1/2":
		return rules.Draw
	}
	return rules.Ongoing
}

// matchRecords checks that the shard's records are one per ply of gf's
// games, in order, each the position the game reached with the move it
// played and its result from the side to move.
func matchRecords(shardPath string, gf *gamerec.File) error {
	r, err := datasets.Open(shardPath)
	if err != nil {
		return err
	}
	defer r.Close()
	if h := r.Header(); h.NetworkID != gf.Header.NetworkID {
		return fmt.Errorf("network %s, the shard's is %s", gf.Header.NetworkID, h.NetworkID)
	}
	rs := gf.SelfPlayRuleSet()
	if rs == nil {
		return fmt.Errorf("rule set %s, not one", ruleSetName(gf))
	}
	var (
		gi    = -1
		game  *rules.Game
		moves []string
		ply   int
		want  datasets.Record
		legal []rules.Move
		// finalWhite holds each record's final material, to White: checked
		// once the game has been replayed to its end.
		finalWhite []int
	)
	finish := func() error {
		if gi < 0 {
			return nil
		}
		if ply != len(moves) {
			return fmt.Errorf("game %d has %d plies but %d records in the shard", gf.Games[gi].ID, len(moves), ply)
		}
		m := game.Position().MaterialBalance(rules.White)
		for i, claimed := range finalWhite {
			if claimed != m {
				return fmt.Errorf("game %d ply %d: the record's final material is %d to White, the game's %d", gf.Games[gi].ID, i, claimed, m)
			}
		}
		return nil
	}
	for rec, err := range r.Records() {
		if err != nil {
			return err
		}
		if gi < 0 || rec.GameID != gf.Games[gi].ID {
			if err := finish(); err != nil {
				return err
			}
			gi++
			if gi >= len(gf.Games) {
				return fmt.Errorf("the shard has records of game %d after its %d games", rec.GameID, len(gf.Games))
			}
			g := &gf.Games[gi]
			if rec.GameID != g.ID {
				return fmt.Errorf("the shard's game %d is game %d in the game records", rec.GameID, g.ID)
			}
			if game, err = rules.NewGame(rs, g.StartFEN); err != nil {
				return fmt.Errorf("game %d: %w", g.ID, err)
			}
			moves, ply, finalWhite = strings.Fields(g.Moves), 0, finalWhite[:0]
		}
		g := &gf.Games[gi]
		if ply >= len(moves) {
			return fmt.Errorf("game %d: more records than its %d plies", g.ID, len(moves))
		}
		legal = game.LegalMoves(legal[:0])
		want.SetPosition(game, legal)
		if rec.Ply != ply || rec.Board != want.Board || rec.Side != want.Side || rec.HalfmoveClock != want.HalfmoveClock ||
			rec.NumHistory != want.NumHistory || rec.History != want.History || rec.Repetitions != want.Repetitions ||
			rec.InCheck != want.InCheck || rec.PassLegal != want.PassLegal {
			return fmt.Errorf("game %d: the record of ply %d is not the game's position there", g.ID, ply)
		}
		if rec.Move.String() != moves[ply] {
			return fmt.Errorf("game %d ply %d: the record's move is %s, the game's %s", g.ID, ply, rec.Move, moves[ply])
		}
		if _, err := game.PlayText(moves[ply], rules.Ranks1); err != nil {
			return fmt.Errorf("game %d ply %d: %w", g.ID, ply, err)
		}
		if o := outcomeFor(scoreOutcome(g.Result), rec.Side); rec.Result != o {
			return fmt.Errorf("game %d ply %d: the record's result is %s, the game's (%s, to %s) %s", g.ID, ply, rec.Result, g.Result, rec.Side, o)
		}
		if rec.Side == rules.White {
			finalWhite = append(finalWhite, rec.FinalMaterial)
		} else {
			finalWhite = append(finalWhite, -rec.FinalMaterial)
		}
		ply++
	}
	if err := finish(); err != nil {
		return err
	}
	if gi+1 != len(gf.Games) {
		return fmt.Errorf("the shard has records of %d games, the game records %d", gi+1, len(gf.Games))
	}
	return nil
}
