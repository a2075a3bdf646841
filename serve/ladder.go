package serve

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/palace-chess/palace/ladder"
)

// ladderPage is a ladder directory's rating: where the player landed on
// the scale and its match against each rung, each rung's games linked.
type ladderPage struct {
	Name   string
	Rating *ladder.Rating
	Rungs  []rungRow
}

type rungRow struct {
	Rung     string
	RungElo  string
	WDL      string
	Score    string
	GamesURL string
}

func (s *Server) handleLadder(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !t.isDir {
		s.fail(w, fmt.Errorf("serve: %s is not a ladder directory", s.name(t)))
		return
	}
	rating, err := ladder.ReadRating(t.path)
	if err != nil {
		s.fail(w, err)
		return
	}
	p := ladderPage{Name: s.name(t), Rating: rating}
	for _, rr := range rating.Rungs {
		rung := ladder.Rung{Nodes: rr.Nodes, Player: rr.Player}
		row := rungRow{Rung: rung.Label(), RungElo: fmt.Sprintf("%+.0f", float64(rr.RungElo)),
			WDL: fmt.Sprintf("%d-%d-%d", rr.WDL.Wins, rr.WDL.Draws, rr.WDL.Losses), Score: fmt.Sprintf("%.1f%%", 100*rr.Score)}
		file := ladder.RungFile(rung)
		if info, err := os.Lstat(filepath.Join(t.path, file)); err == nil && info.Mode().IsRegular() {
			rel := file
			if t.rel != "" {
				rel = t.rel + "/" + file
			}
			row.GamesURL = link("games", t.root, rel)
		}
		p.Rungs = append(p.Rungs, row)
	}
	s.render(w, http.StatusOK, "ladder.html", page{Title: "Ladder " + p.Name, Crumbs: s.crumbs(t), Data: p})
}
