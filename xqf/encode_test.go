package xqf

import (
	"encoding/binary"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/palace-chess/palace/rules"
)

// A test-only .xqf writer: there are no real .xqf files here, so the
// reader is checked against files built by the format's description,
// written independently of the reader (its key schedule in the form the
// format notes give, not the reader's folded 54k²+221).

// tnode is one move of a test game tree; the root has no move.
type tnode struct {
	move    string // ICCS (h2e2); "" at the root
	comment string
	next    []*tnode // next[0] continues the line, the rest are alternatives
}

// line builds a root and main line from ICCS moves.
func line(moves ...string) *tnode {
	root := &tnode{}
	n := root
	for _, m := range moves {
		c := &tnode{move: m}
		n.next = append(n.next, c)
		n = c
	}
	return root
}

// at is the main-line node after ply plies (the root for 0).
func (n *tnode) at(ply int) *tnode {
	for range ply {
		n = n.next[0]
	}
	return n
}

// alt adds moves as an alternative line to the main line's ply-th move.
func (n *tnode) alt(ply int, moves ...string) {
	p := n.at(ply - 1)
	var first, cur *tnode
	for _, m := range moves {
		c := &tnode{move: m}
		if first == nil {
			first = c
		} else {
			cur.next = append(cur.next, c)
		}
		cur = c
	}
	p.next = append(p.next, first)
}

// spec describes a file to write.
type spec struct {
	version byte
	// sum, xy, xyf, xyt: the header's key bytes (versions 11 and later);
	// sum is set so that they add up to 0 unless badSum.
	xy, xyf, xyt byte
	badSum       bool
	mask         byte
	or           [4]byte
	fen          string // "": the standard start
	whoPlays     byte
	result       byte
	gameType     byte
	text         map[string]string // textFields tag -> UTF-8 text
	root         *tnode
}

// testKey is the format notes' key step, ((((k²·3+9)·3+8)·2+1)·3+8)·seed.
func testKey(k, seed byte) byte {
	v := int(k)
	return byte((((((v*v)*3+9)*3+8)*2+1)*3 + 8) * int(seed))
}

func gbk(t testing.TB, s string) []byte {
	b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("GBK %q: %v", s, err)
	}
	return b
}

// iccsXY is an ICCS square as x*10+y.
func iccsXY(t testing.TB, s string) byte {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'i' || s[1] < '0' || s[1] > '9' {
		t.Fatalf("bad ICCS square %q", s)
	}
	return (s[0]-'a')*10 + s[1] - '0'
}

// encode writes s as an .xqf file.
func encode(t testing.TB, s spec) []byte {
	t.Helper()
	h := make([]byte, headerSize)
	h[0], h[1], h[2], h[3] = 'X', 'Q', s.version, s.mask
	copy(h[8:12], s.or[:])
	sum := -(s.xy + s.xyf + s.xyt)
	if s.badSum {
		sum++
	}
	h[12], h[13], h[14], h[15] = sum, s.xy, s.xyf, s.xyt
	var kxy, kf, kt byte
	var rmk int
	var stream [32]byte
	enc := s.version > 10
	if enc {
		kxy = testKey(s.xy, s.xy)
		kf = testKey(s.xyf, kxy)
		kt = testKey(s.xyt, kf)
		rmk = (int(sum)*256+int(s.xy))%32000 + 767
		b := [4]byte{sum&s.mask | s.or[0], s.xy&s.mask | s.or[1], s.xyf&s.mask | s.or[2], s.xyt&s.mask | s.or[3]}
		for i := range stream {
			stream[i] = "[(C) Copyright Mr. Dong Shiwei.]"[i] & b[i%4]
		}
	}

	// The start position, slot by slot.
	fen := s.fen
	if fen == "" {
		fen = rules.XiangqiStartFEN
	}
	pos, err := rules.ParseFEN(fen, rules.MustPreset("xiangqi"))
	if err != nil {
		t.Fatal(err)
	}
	var slot [32]byte
	used := [32]bool{}
	for sq := rules.Square(0); sq < rules.Squares; sq++ {
		pc := pos.Board(sq)
		if pc == rules.NoPiece {
			continue
		}
		i := 0
		for ; i < 32; i++ {
			if !used[i] && "RNBAKABNRCCPPPPPrnbakabnrccppppp"[i] == pc.Letter() {
				break
			}
		}
		if i == 32 {
			t.Fatalf("%s: too many %c for the 32 slots", fen, pc.Letter())
		}
		used[i] = true
		slot[i] = byte(sq.File()*10 + sq.Rank())
	}
	for i := range slot {
		if !used[i] {
			slot[i] = byte(90 + 5*i) // off the board: any value from 90 on
		}
	}
	for i := range slot {
		j := i
		if s.version >= 12 {
			j = (i + 1 + int(kxy)) % 32
		}
		h[16+i] = slot[j] + kxy
	}
	if strings.Fields(fen)[1] == "b" {
		h[50] = 1
	}
	if s.whoPlays != 0 {
		h[50] = s.whoPlays
	}
	h[51], h[64] = s.result, s.gameType
	for tag, v := range s.text {
		for _, f := range textFields {
			if f.tag == tag {
				b := gbk(t, v)
				h[f.off] = byte(len(b))
				copy(h[f.off+1:f.off+1+f.capacity], b)
			}
		}
	}

	// The tree, depth first: a node, its continuation's subtree (which
	// holds the continuation's alternatives), then its own alternative.
	root := s.root
	if root == nil {
		root = &tnode{}
	}
	body := h
	var write func(n *tnode, sibling bool)
	write = func(n *tnode, sibling bool) {
		var from, to byte
		if n.move != "" {
			from, to = iccsXY(t, n.move[:2]), iccsXY(t, n.move[2:])
		}
		var flags byte
		c := gbk(t, n.comment)
		if s.version <= 10 {
			if len(n.next) > 0 {
				flags |= 0xf0
			}
			if sibling {
				flags |= 0x0f
			}
		} else {
			if len(n.next) > 0 {
				flags |= 0x80
			}
			if sibling {
				flags |= 0x40
			}
			if len(c) > 0 {
				flags |= 0x20
			}
		}
		body = append(body, from+0x18+kf, to+0x20+kt, flags, 0)
		if s.version <= 10 || len(c) > 0 {
			body = binary.LittleEndian.AppendUint32(body, uint32(len(c)+rmk))
			body = append(body, c...)
		}
		for i, c := range n.next {
			write(c, i < len(n.next)-1)
		}
	}
	write(root, false)
	if enc {
		for i := headerSize; i < len(body); i++ {
			body[i] += stream[i%32]
		}
	}
	return body
}
