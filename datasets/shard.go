// Package datasets is palace's training data: the record of one position
// (a packed board, the moves the encoder's history needs, the search's
// targets, the game's result), shard files of zstd-compressed, checksummed
// blocks of records, a crash-safe manifest of completed shards, and a
// sampler that draws uniformly from KataGo's growing replay window.
//
// A shard file, little-endian throughout:
//
//	header
//	  "PALSHARD"      magic, 8 bytes
//	  uint32          format version (FormatVersion)
//	  uint32          metadata length H
//	  H bytes         metadata: JSON (Header)
//	  uint32          CRC-32C of the 16+H bytes above
//	blocks, one after another
//	  uint32          records n
//	  uint32          uncompressed length U
//	  uint32          compressed length C
//	  uint32          CRC-32C of the 12 bytes above and the C below
//	  C bytes         one zstd frame: n × (uvarint length, record body)
//	footer, the block index
//	  "PALINDEX"      8 bytes
//	  uint32          blocks B
//	  uint64          records in the shard
//	  B × 28 bytes    uint64 offset, uint32 C, uint32 U, uint32 n,
//	                  uint64 first record's game id
//	  uint32          CRC-32C of the footer bytes above
//	trailer, 24 bytes
//	  uint64          footer offset
//	  uint32          footer length
//	  uint32          CRC-32C of the 12 bytes above
//	  "PALSHEND"      8 bytes
//
// Every byte lies under a checksum or a magic, and the reader checks that
// the blocks tile the file from the header to the footer, so a flipped
// byte or a truncation anywhere is an error that names the file (and the
// block, for a block), never fewer records. The record body's layout is
// given in record.go.
//
// datasets imports rules and encode (a record is a rules position; its
// policy indices are encode's) and nothing above them; selfplay writes
// shards and train reads them.
package datasets

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"time"

	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// FormatVersion is the shard layout this code writes; any change to the
// file or record layout makes a new version. Version 2 added the record's
// final material balance; version-1 shards are still read (their records
// have FinalMaterial 0). Version 3 added NoResult (the result field's
// fourth value), for positions of imported games without a result.
const (
	FormatVersion       = 3
	OldestFormatVersion = 1
)

var (
	shardMagic   = []byte("PALSHARD")
	indexMagic   = []byte("PALINDEX")
	trailerMagic = []byte("PALSHEND")
)

// Sentinel errors; errors from this package wrap them.
var (
	// ErrNotShard: the file does not start like a palace shard.
	ErrNotShard = errors.New("datasets: not a palace shard")
	// ErrCorrupt: the bytes do not check out (damaged or truncated).
	ErrCorrupt = errors.New("datasets: corrupt shard")
	// ErrVersion: a format or encoding version this code does not read.
	ErrVersion = errors.New("datasets: unsupported version")
	// ErrUnlisted: a shard in a directory that its manifest does not list
	// (left by a crash between renaming it and listing it).
	ErrUnlisted = errors.New("datasets: shard not in the manifest")
)

// FileError is an error in one file, and in one block of it when Block
// is not negative.
type FileError struct {
	Path  string
	Block int
	Err   error
}

func (e *FileError) Error() string {
	if e.Block >= 0 {
		return fmt.Sprintf("datasets: %s: block %d: %v", e.Path, e.Block, e.Err)
	}
	return fmt.Sprintf("datasets: %s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Header is a shard's metadata: what made its records and what they mean.
type Header struct {
	RuleSetName string `json:"rule_set_name"`
	RuleSetHash string `json:"rule_set_hash"`
	// EncodingVersion is encode.Version: the policy indices' meaning.
	EncodingVersion int `json:"encoding_version"`
	PolicySize      int `json:"policy_size"`
	// NetworkID is the network that played (model.Weights.ID), ConfigHash
	// the self-play configuration's digest, CodeVersion palace's version.
	NetworkID   string    `json:"network_id"`
	ConfigHash  string    `json:"config_hash"`
	CodeVersion string    `json:"code_version"`
	Seeds       []uint64  `json:"seeds,omitempty"`
	Created     time.Time `json:"created"`
	Note        string    `json:"note,omitempty"`
}

// NewHeader is a header for shards of games under rs, with this build's
// encoding and the current time; the caller adds the provenance.
func NewHeader(rs *rules.RuleSet) Header {
	return Header{
		RuleSetName:     rs.Name,
		RuleSetHash:     rs.Hash(),
		EncodingVersion: encode.Version,
		PolicySize:      encode.PolicySize(),
		Created:         time.Now().UTC(),
	}
}

// RuleSet is the rule set's name@hash, as rules.RuleSet.String writes it.
func (h Header) RuleSet() string { return h.RuleSetName + "@" + h.RuleSetHash }

// check says what makes a header unusable: a missing rule set, or an
// encoding whose policy indices would mean other moves than this build's.
func (h *Header) check() error {
	if h.RuleSetName == "" || h.RuleSetHash == "" || strings.Contains(h.RuleSetName, "@") {
		return fmt.Errorf("rule set %q: want a name and a hash", h.RuleSet())
	}
	if !encode.SamePolicy(h.EncodingVersion) || h.PolicySize != encode.PolicySize() {
		return fmt.Errorf("%w: encoding version %d with %d policy slots; this palace reads version %d with %d",
			ErrVersion, h.EncodingVersion, h.PolicySize, encode.Version, encode.PolicySize())
	}
	return nil
}

// BlockInfo is one block's entry in the footer index.
type BlockInfo struct {
	Offset    int64  // of the block header in the file
	Size      uint32 // compressed bytes
	Raw       uint32 // uncompressed bytes
	Records   uint32
	FirstGame uint64 // game id of the block's first record
}

const (
	fileHeaderFixed = 16 // magic, version, metadata length
	blockHeaderLen  = 16
	indexEntryLen   = 28
	indexFixed      = 8 + 4 + 8 + 4 // magic, count, records, CRC
	trailerLen      = 24
	maxMetadata     = 1 << 20
	// maxBlockRaw bounds one block's uncompressed size, so that a reader
	// never allocates more than this for one block whatever a file says.
	maxBlockRaw = 64 << 20
	// blockFlushBytes ends a block early when its records grow this large.
	blockFlushBytes = 8 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)
