package camera

// FrameJPEG is frameJPEG, for the benchmark.
var FrameJPEG = frameJPEG
