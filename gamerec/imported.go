package gamerec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/rules"
)

// What an importer of game records (pgn, gib, xqf, ccbridge) shares: the
// options a user sets for a collection, the reasons a record is refused
// (each reader's errors wrap one, so that palace import can count them by
// reason), and the notices about records imported with something changed
// or left out.

// ImportOptions are the choices a user makes for a whole collection.
type ImportOptions struct {
	// RuleSet is the rule set the collection was played under; nil: the
	// format's own default (a PGN's Variant tag, else xiangqi; janggi for
	// .gib). A reader refuses a record of the other game.
	RuleSet *rules.RuleSet
	// Strict refuses a record whose recorded result a forced end (mate,
	// stalemate, a double pass, bikjang) contradicts, instead of
	// importing it with the rules' result and a notice.
	Strict bool
}

// Why a record is refused. Every error a reader returns about one record
// wraps exactly one of these (errors.Is), beside the reader's own kind.
var (
	// ErrRecordSyntax: the record cannot be read (bytes, tags, structure).
	ErrRecordSyntax = errors.New("malformed record")
	// ErrRecordNoMoves: the record holds no moves.
	ErrRecordNoMoves = errors.New("no moves")
	// ErrRecordSetup: the start position or variant is unusable.
	ErrRecordSetup = errors.New("bad setup")
	// ErrRecordMove: a move is unreadable, illegal or ambiguous, or
	// follows the end of the game.
	ErrRecordMove = errors.New("bad move")
	// ErrRecordResult: the recorded result is unreadable, or the rules
	// contradict it (refused under ImportOptions.Strict only).
	ErrRecordResult = errors.New("bad result")
)

// RefusalReasons lists the refusal kinds in the order summaries print them.
var RefusalReasons = []error{ErrRecordSyntax, ErrRecordNoMoves, ErrRecordSetup, ErrRecordMove, ErrRecordResult}

// RefusalReason is the refusal kind err wraps, "other" when none.
func RefusalReason(err error) string {
	for _, kind := range RefusalReasons {
		if errors.Is(err, kind) {
			return kind.Error()
		}
	}
	return "other"
}

// Notice kinds: what an importer changed in a record it imported, or left
// out of it because a games file cannot hold it.
const (
	NoticeResultCorrected = "result corrected"
	NoticeStrayBytes      = "stray bytes skipped"
	NoticeVariations      = "variations dropped"
	NoticeComments        = "comments dropped"
	NoticeTokens          = "non-move tokens skipped"
)

// Notice is one thing an importer changed or skipped; the record (or the
// file around it, Game 0) was still imported.
type Notice struct {
	Source string
	Game   int // 1-based index of the record in its file; 0: between records
	Line   int // where in a text file (0: not known or not a text file)
	Kind   string
	Msg    string
}

func (n Notice) String() string {
	where := n.Source
	if n.Game > 0 {
		where += fmt.Sprintf(" game %d", n.Game)
	}
	if n.Line > 0 {
		where += fmt.Sprintf(", line %d", n.Line)
	}
	if n.Msg == "" {
		return where + ": " + n.Kind
	}
	return where + ": " + n.Kind + ": " + n.Msg
}

// SettleImport is Settle for an importer honouring opt.Strict: where a
// forced end contradicts the recorded result, a lenient import takes the
// rules' result and returns what it corrected (for a
// NoticeResultCorrected); a strict one returns Settle's error.
func (g *Game) SettleImport(game *rules.Game, result, reason string, opt ImportOptions) (corrected string, err error) {
	err = g.Settle(game, result, reason)
	if err == nil || opt.Strict {
		return "", err
	}
	r := game.ImmediateResult()
	if !r.Over() || result == r.Score() {
		return "", err
	}
	g.End = EndOf(r)
	return fmt.Sprintf("the record says %s, the rules end the game %s", result, r), nil
}

// RecordDate writes a record's date as PGN does, YYYY.MM.DD with ?? for a
// part not given or out of range, from its numbers in order ("1997-10-05",
// "1937년 10월 8일", "1997年10月"); "" without a four-digit year first or
// with more than three numbers.
func RecordDate(v string) string {
	var nums []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
		n, err := strconv.Atoi(f)
		if err != nil || len(f) > 4 {
			return ""
		}
		nums = append(nums, n)
	}
	if len(nums) == 0 || nums[0] < 1000 || len(nums) > 3 {
		return ""
	}
	out := fmt.Sprintf("%04d", nums[0])
	for i, limit := range []int{12, 31} {
		if i+1 < len(nums) && nums[i+1] >= 1 && nums[i+1] <= limit {
			out += fmt.Sprintf(".%02d", nums[i+1])
		} else {
			out += ".??"
		}
	}
	return out
}
