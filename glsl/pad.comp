// pad.comp placeholder
void main() {}
