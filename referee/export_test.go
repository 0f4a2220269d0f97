package referee

// FrameJPEG is frameJPEG, for the benchmark.
var FrameJPEG = frameJPEG
