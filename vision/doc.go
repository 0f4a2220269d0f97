// Package vision finds dice in camera images and reads their top faces with
// OpenCV (through gocv). Images in, dice out: it knows nothing of games.
//
// A Reader, configured by Options (camera view, optional die size and what
// the dice carry on their 1), returns every die it finds as a Die: the top
// face (1-6, or the wild star), its centre and size in pixels, a confidence,
// and an Uncertain flag for dice it cannot read reliably (cocked, half
// hidden, unreadable). A referee must ask for a look at those rather than
// guess.
//
// Frames come from a Source: a V4L2 camera (OpenV4L2), a GStreamer
// pipeline such as the Raspberry Pi camera's (OpenGStreamer), a still
// image (OpenImage), a folder of images (OpenFolder), or the synthetic
// table of package vision/synth.
//
// Dice are found by the dice finder, a small fully convolutional network
// (model/finder.json) that marks each die's centre and size, and read by
// the face network (model/facenet.json), a small convolutional network
// that reads a window around each die turned square to the image; it also
// says when a window holds no die, or a die whose face cannot be read.
// The rules, which segment the image and count the marks a face encloses
// (checked by the classifier in model/face.json), are a second opinion: a
// confident read they contradict is flagged Uncertain. All three are pure
// Go networks made by `liarsd readtrain` (TrainFaceModel, TrainLearned)
// from the train/ split of the labelled photographs and synthetic tables.
// docs/vision.md describes the method and quotes the measured accuracy and
// speed; `liarsd readbench` prints them.
package vision
