/* jni.h (stub): the few JNI types and JNIEnv functions that examples/jni/vkinfer_jni.c
 * uses, written for this project so that CI can compile that file without a JDK or the
 * NDK. Compile-check only: the function table below is NOT laid out as a JVM's, so a
 * library built against it must never be loaded. Build the real thing against the NDK's
 * (or a JDK's) jni.h, which declares all of these with the same names and types. */
#ifndef VKINFER_STUB_JNI_H
#define VKINFER_STUB_JNI_H

#include <stdint.h>

#define JNIEXPORT __attribute__((visibility("default")))
#define JNICALL

typedef uint8_t jboolean;
typedef int8_t jbyte;
typedef int32_t jint;
typedef int64_t jlong;
typedef float jfloat;
typedef jint jsize;

typedef struct vkinfer_stub_jobject *jobject;
typedef jobject jclass;
typedef jobject jstring;
typedef jobject jthrowable;
typedef jobject jarray;
typedef jarray jbyteArray;
typedef jarray jintArray;
typedef jarray jfloatArray;

#define JNI_FALSE 0
#define JNI_TRUE 1
#define JNI_ABORT 2     /* Release<Type>ArrayElements: free the copy, write nothing back */

struct JNINativeInterface_;
typedef const struct JNINativeInterface_ *JNIEnv;   /* C: JNIEnv *env, (*env)->Fn(env, ...) */

struct JNINativeInterface_ {
    jclass (*FindClass)(JNIEnv *env, const char *name);
    jint (*ThrowNew)(JNIEnv *env, jclass cls, const char *message);
    jboolean (*ExceptionCheck)(JNIEnv *env);
    void (*DeleteLocalRef)(JNIEnv *env, jobject obj);
    const char *(*GetStringUTFChars)(JNIEnv *env, jstring str, jboolean *is_copy);
    void (*ReleaseStringUTFChars)(JNIEnv *env, jstring str, const char *chars);
    jsize (*GetArrayLength)(JNIEnv *env, jarray array);
    jbyte *(*GetByteArrayElements)(JNIEnv *env, jbyteArray array, jboolean *is_copy);
    void (*ReleaseByteArrayElements)(JNIEnv *env, jbyteArray array, jbyte *elems, jint mode);
    jint *(*GetIntArrayElements)(JNIEnv *env, jintArray array, jboolean *is_copy);
    void (*ReleaseIntArrayElements)(JNIEnv *env, jintArray array, jint *elems, jint mode);
    void (*SetFloatArrayRegion)(JNIEnv *env, jfloatArray array, jsize start, jsize len,
                                const jfloat *buf);
    void *(*GetDirectBufferAddress)(JNIEnv *env, jobject buf);
    jlong (*GetDirectBufferCapacity)(JNIEnv *env, jobject buf);
};

#endif
