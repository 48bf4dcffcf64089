// gather.comp placeholder
void main() {}
