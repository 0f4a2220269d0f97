package vision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// TrainLearned trains the dice finder and the face network on what o
// names and writes their weights as JSON (the formats of
// vision/model/finder.json and vision/model/facenet.json). Either writer
// may be nil to skip that model. The face network also learns the places
// the finder (the one just trained, else o.Models' or the embedded one)
// mistakes for dice on the photographs (mineHardNegatives). The result
// depends only on o (seeds, epochs, data and Workers), that finder and the
// BLAS library, not on scheduling. It stops, writing nothing, when ctx
// ends.
func TrainLearned(ctx context.Context, o TrainOptions, finderOut, facesOut io.Writer) error {
	if o.FinderEpochs <= 0 {
		o.FinderEpochs = 60
	}
	if o.FaceNetEpochs <= 0 {
		o.FaceNetEpochs = 100
	}
	if o.FaceNets <= 0 {
		o.FaceNets = 2
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.FaceNetAverage < 0 || o.FaceNetAverage >= 1 {
		return fmt.Errorf("vision: face network weight average %v: want a decay from 0 (none) to below 1", o.FaceNetAverage)
	}
	if o.FaceNetHardWeight < 0 {
		return fmt.Errorf("vision: face network hard dice weight %v: want 0 (none) or more", o.FaceNetHardWeight)
	}
	tables, err := loadTrainTables(o)
	if err != nil {
		return err
	}
	dice := 0
	for _, t := range tables {
		dice += len(t.dice)
	}
	if dice == 0 {
		return errors.New("vision: nothing to train on")
	}
	finderNet, rules := (*network)(nil), defaultModel
	if o.Models != nil {
		finderNet, rules = o.Models.learned.finder, o.Models.rules
	} else if defaultLearned != nil {
		finderNet = defaultLearned.finder
	}
	source := fmt.Sprintf("%d dice on %d images (photos' train/ split and %d synthetic tables from seed %d)", dice, len(tables), o.Synthetic, o.SyntheticSeed)
	if finderOut != nil {
		n, err := trainFinderNet(tables, fitOptions{Epochs: o.FinderEpochs, Batch: 16, LR: 3e-3, Decay: 1e-4, Workers: o.Workers, Seed: o.Seed,
			Logf: prefixed(o.logf, "finder: "), Ctx: ctx}, 3)
		if err != nil {
			return err
		}
		n.Trained = fmt.Sprintf("%s, %d epochs of 3 crops an image, seed %d", source, o.FinderEpochs, o.Seed)
		finderNet = n
		if err := json.NewEncoder(finderOut).Encode(n); err != nil {
			return err
		}
	}
	if facesOut == nil {
		return nil
	}
	if finderNet == nil {
		return errors.New("vision: no dice finder to find the face network's hard negatives with")
	}
	hard, err := mineHardNegatives(tables, finderNet, rules)
	if err != nil {
		return err
	}
	o.logf("face nets: %d hard negatives (places the dice finder takes for dice)", hard)
	source += fmt.Sprintf(", %d hard negatives", hard)
	// The face networks train at once, sharing the workers.
	f := faceNets{Nets: make([]*network, o.FaceNets)}
	errs := make([]error, o.FaceNets)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range f.Nets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seed := o.Seed + uint64(i)
			f.Nets[i], errs[i] = trainFaceNet(tables, o.photoWeight(), o.FaceNetHardWeight, fitOptions{Epochs: o.FaceNetEpochs, Batch: 32, LR: 6e-3, Decay: 1e-4, Average: o.FaceNetAverage,
				Workers: max(o.Workers/o.FaceNets, 1), Seed: seed, Ctx: ctx,
				Logf: func(format string, args ...any) {
					mu.Lock()
					defer mu.Unlock()
					o.logf("face net %d: "+format, append([]any{i + 1}, args...)...)
				}})
			if errs[i] != nil {
				return
			}
			f.Nets[i].Trained = fmt.Sprintf("%s, photographs counted %d times, %d epochs, seed %d", source, o.photoWeight(), o.FaceNetEpochs, seed)
			if o.FaceNetAverage > 0 {
				f.Nets[i].Trained += fmt.Sprintf(", weights averaged (decay %v)", o.FaceNetAverage)
			}
			if o.FaceNetHardWeight > 0 {
				f.Nets[i].Trained += fmt.Sprintf(", hard photographed dice counted up to %v times", 1+o.FaceNetHardWeight)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the nets stop at once, for the same reason
		}
	}
	return json.NewEncoder(facesOut).Encode(f)
}

func prefixed(logf func(string, ...any), prefix string) func(string, ...any) {
	return func(format string, args ...any) { logf(prefix+format, args...) }
}
