# vision/embed_model.cmake: writes the bytes of the point model (IN, an
# ONNX file) as a C array (OUT): vision_points_onnx, vision_points_onnx_len.
# Run by the build (cmake -P), so the array follows the file.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* generated from vision/points.onnx by vision/embed_model.cmake: do not edit */\n#include <stddef.h>\nextern const unsigned char vision_points_onnx[];\nextern const size_t vision_points_onnx_len;\nconst unsigned char vision_points_onnx[] = {\n${body}};\nconst size_t vision_points_onnx_len = ${bytes};\n")
