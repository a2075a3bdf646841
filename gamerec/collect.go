package gamerec

import (
	"fmt"
	"os"

	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/rules"
)

// IsGamesFile reports whether path starts with this package's header.
func IsGamesFile(path string) (bool, error) {
	format, err := jsonlrec.FileFormat(path)
	if err != nil {
		return false, fmt.Errorf("gamerec: %w", err)
	}
	return format == Format, nil
}

// ReadEach reads the games file at path and hands each game to fn with its
// rule set, in the file's order. A self-play file's games (its header
// names a shard) get their Source, Index and Network, and a Date: self-play
// records none, so the day the file was committed serves date filters (a
// file copied without its times gets the copy's). fn's error stops it and
// is returned as is; fn must not keep g past the call, and may keep rs.
func ReadEach(path string, fn func(g *Game, rs *rules.RuleSet) error) error {
	f, err := Read(path)
	if err != nil {
		return err
	}
	selfplay := f.Header.Shard != ""
	date := ""
	if selfplay {
		if info, err := os.Stat(path); err == nil {
			date = info.ModTime().UTC().Format("2006.01.02")
		}
	}
	for i := range f.Games {
		g := &f.Games[i]
		if selfplay {
			g.Source, g.Index, g.Network, g.Date = path, i+1, f.Header.NetworkID, date
		}
		if err := fn(g, f.RuleSet(g)); err != nil {
			return err
		}
	}
	return nil
}
