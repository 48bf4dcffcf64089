// depthwise_conv2d.comp placeholder
void main() {}
