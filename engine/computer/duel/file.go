package duel

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// magic opens a solution file of common-hand; magicRules one of other
// rules, followed by the rules' code. Common-hand's files keep the first
// form, so that the recipe makes them again byte for byte.
const (
	magic      = "liarsd-duel-1\n"
	magicRules = "liarsd-duel-2\n"
)

// Steps is the resolution of a stored probability: a multiple of 1/Steps.
const Steps = 255

// Encode writes the solution, its probabilities quantized to multiples of
// 1/Steps (one byte each), gzipped. Quantize it first so that what is
// played is what was measured.
func (sol *Solution) Encode(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("duel: %w", err)
	}
	bw := bufio.NewWriter(zw)
	if r := sol.rules(); r.code == 0 {
		bw.WriteString(magic)
	} else {
		bw.WriteString(magicRules)
		bw.WriteByte(r.code)
	}
	bw.WriteByte(byte(sol.Start))
	for _, d := range deals(sol.Start) {
		t := sol.trees[d]
		binary.Write(bw, binary.LittleEndian, math.Float64bits(sol.Values[d.D0][d.D1]))
		bw.WriteByte(byte(t.K))
		for p := range 2 {
			for _, x := range sol.strat[d][p] {
				bw.WriteByte(byte(math.Round(x * Steps)))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("duel: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("duel: %w", err)
	}
	return nil
}

// Decode reads a solution that Encode wrote.
func Decode(data []byte) (*Solution, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("duel: %w", err)
	}
	r := bufio.NewReader(zr)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || (string(head) != magic && string(head) != magicRules) {
		return nil, errors.New("duel: not a solution file")
	}
	rules := CommonHand
	if string(head) == magicRules {
		code, err := r.ReadByte()
		if rules = rulesOfCode(code); err != nil || rules == nil || code == 0 {
			return nil, errors.New("duel: a solution file of rules this build does not know")
		}
	}
	b, err := r.ReadByte()
	start := int(b)
	if err != nil || start < 1 || start > 2 {
		return nil, fmt.Errorf("duel: solution file of %d dice a seat", start)
	}
	sol := &Solution{Rules: rules, Start: start, trees: map[Deal]*Tree{}, strat: map[Deal][2][]float64{}}
	for _, d := range deals(start) {
		var bits uint64
		if err := binary.Read(r, binary.LittleEndian, &bits); err != nil {
			return nil, fmt.Errorf("duel: solution file cut short: %w", err)
		}
		sol.Values[d.D0][d.D1] = math.Float64frombits(bits)
		k, err := r.ReadByte()
		if err != nil || k < 1 {
			return nil, errors.New("duel: solution file cut short")
		}
		t := NewTree(rules, d, int(k))
		sol.trees[d] = t
		var st [2][]float64
		for p := range 2 {
			raw := make([]byte, t.size[p])
			if _, err := io.ReadFull(r, raw); err != nil {
				return nil, fmt.Errorf("duel: solution file cut short: %w", err)
			}
			st[p] = make([]float64, len(raw))
			for i, x := range raw {
				st[p][i] = float64(x) / Steps
			}
		}
		sol.strat[d] = st
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, errors.New("duel: solution file runs on past its tables")
	}
	return sol, nil
}
