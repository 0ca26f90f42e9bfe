/*
 * A headless renderer on the skelmap C ABI alone: it opens a model, poses it at a time in
 * its first animation, skins every mesh into an unindexed stream (three vertices per
 * triangle, so formats that store texture coordinates or normals per corner draw as they are
 * stored), binds each submesh's material (an embedded skin decoded to RGBA8, else a checker
 * standing in for the texture file the material names) and rasterises the triangles with a
 * depth buffer into a binary PPM.
 *
 *   render MODEL OUT.ppm [SECONDS [SIZE]]
 *
 * It prints one line: the model's format, what it drew and a checksum of the image. Every
 * status is checked; on failure it prints skelmap_last_error() and exits 1.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skelmap.h"

typedef struct {
    uint32_t width, height;
    uint8_t *rgba; /* NULL: draw a checker */
} Texture;

typedef struct {
    int size;
    uint8_t *rgb;
    float *depth;
    uint64_t drawn, textured;
} Image;

static bool ok(SkelmapStatus s, const char *what) {
    if (s == SKELMAP_STATUS_OK) return true;
    char msg[512];
    skelmap_last_error(msg, sizeof msg);
    fprintf(stderr, "%s: %s (%s)\n", what, msg, skelmap_status_str((uint32_t)s));
    return false;
}

/* The texel at (u, v), v pointing down the image, wrapped; a checker without texels. */
static void sample(const Texture *t, float u, float v, uint8_t out[3]) {
    u -= floorf(u);
    v -= floorf(v);
    if (!t->rgba || t->width == 0 || t->height == 0) {
        int check = ((int)(u * 8.0f) + (int)(v * 8.0f)) & 1;
        out[0] = check ? 200 : 90;
        out[1] = check ? 180 : 90;
        out[2] = check ? 140 : 110;
        return;
    }
    uint32_t x = (uint32_t)(u * (float)t->width), y = (uint32_t)(v * (float)t->height);
    if (x >= t->width) x = t->width - 1;
    if (y >= t->height) y = t->height - 1;
    const uint8_t *p = t->rgba + 4 * ((size_t)y * t->width + x);
    memcpy(out, p, 3);
}

/* Fills one screen triangle: a[i] = (x, y, depth), uv per corner, shade 0..1. */
static void fill(Image *img, const float a[3][3], const float uv[3][2], float shade,
                 const Texture *tex) {
    float minx = fminf(a[0][0], fminf(a[1][0], a[2][0]));
    float maxx = fmaxf(a[0][0], fmaxf(a[1][0], a[2][0]));
    float miny = fminf(a[0][1], fminf(a[1][1], a[2][1]));
    float maxy = fmaxf(a[0][1], fmaxf(a[1][1], a[2][1]));
    int x0 = (int)fmaxf(0.0f, floorf(minx)), x1 = (int)fminf((float)img->size - 1, ceilf(maxx));
    int y0 = (int)fmaxf(0.0f, floorf(miny)), y1 = (int)fminf((float)img->size - 1, ceilf(maxy));
    float area = (a[1][0] - a[0][0]) * (a[2][1] - a[0][1]) - (a[2][0] - a[0][0]) * (a[1][1] - a[0][1]);
    if (fabsf(area) < 1e-12f) return;
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            float px = (float)x + 0.5f, py = (float)y + 0.5f;
            float w0 = ((a[1][0] - px) * (a[2][1] - py) - (a[2][0] - px) * (a[1][1] - py)) / area;
            float w1 = ((a[2][0] - px) * (a[0][1] - py) - (a[0][0] - px) * (a[2][1] - py)) / area;
            float w2 = 1.0f - w0 - w1;
            if (w0 < 0.0f || w1 < 0.0f || w2 < 0.0f) continue;
            float z = w0 * a[0][2] + w1 * a[1][2] + w2 * a[2][2];
            size_t at = (size_t)y * (size_t)img->size + (size_t)x;
            if (z >= img->depth[at]) continue;
            img->depth[at] = z;
            uint8_t texel[3];
            sample(tex, w0 * uv[0][0] + w1 * uv[1][0] + w2 * uv[2][0],
                   w0 * uv[0][1] + w1 * uv[1][1] + w2 * uv[2][1], texel);
            for (int c = 0; c < 3; c++) img->rgb[3 * at + (size_t)c] = (uint8_t)(texel[c] * shade);
            img->drawn++;
            if (tex->rgba) img->textured++;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL OUT.ppm [SECONDS [SIZE]]\n", argv[0]);
        return 2;
    }
    float seconds = argc > 3 ? strtof(argv[3], NULL) : 0.0f;
    int size = argc > 4 ? atoi(argv[4]) : 256;
    if (size < 16 || size > 4096) size = 256;
    int rc = 1;
    SkelmapModel *model = NULL;
    SkelmapPose *pose = NULL;
    Texture *skins = NULL;
    float *stream = NULL, *uvs = NULL;
    Image img = {size, calloc((size_t)size * (size_t)size, 3),
                 malloc((size_t)size * (size_t)size * sizeof(float)), 0, 0};
    SkelmapCounts counts = {0};
    if (!img.rgb || !img.depth) goto out;
    for (size_t i = 0; i < (size_t)size * (size_t)size; i++) img.depth[i] = INFINITY;
    if (!ok(skelmap_model_open_file(argv[1], 0, &model), "open")) goto out;
    if (!ok(skelmap_model_counts(model, &counts), "counts")) goto out;
    if (!ok(skelmap_pose_new(&pose), "pose")) goto out;
    if (counts.frame_groups > 0) {
        if (!ok(skelmap_pose_sample_clip(pose, model, 0, seconds, true), "clip")) goto out;
    } else if (!ok(skelmap_pose_bind(pose, model), "bind pose")) {
        goto out;
    }

    /* Every embedded skin decoded once. */
    skins = calloc(counts.skins ? counts.skins : 1, sizeof *skins);
    if (!skins) goto out;
    for (uint32_t k = 0; k < counts.skins; k++) {
        SkelmapSkinInfo info;
        if (!ok(skelmap_skin_info(model, k, &info), "skin")) goto out;
        /* A reference draws the skin it names: size the buffer by that one. */
        if (info.reference >= 0 && !ok(skelmap_skin_info(model, (uint32_t)info.reference, &info), "skin"))
            goto out;
        size_t texels = (size_t)info.width * info.height;
        if (texels == 0) continue;
        skins[k].rgba = malloc(4 * texels);
        if (!skins[k].rgba) goto out;
        if (skelmap_skin_rgba(model, k, skins[k].rgba, texels) != SKELMAP_STATUS_OK) {
            free(skins[k].rgba); /* a DDS or external skin: drawn as a checker */
            skins[k].rgba = NULL;
            continue;
        }
        skins[k].width = info.width;
        skins[k].height = info.height;
    }

    /* Bounds of the posed model, over every mesh's corners, for an orthographic fit. MS3D
       is Y-up; the Quake-lineage formats are Z-up. */
    bool y_up = skelmap_model_format(model) == SKELMAP_FORMAT_MS3D;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint64_t triangles = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t m = 0; m < counts.meshes; m++) {
            SkelmapMeshInfo mesh;
            if (!ok(skelmap_mesh_info(model, m, &mesh), "mesh")) goto out;
            size_t corners = 3 * (size_t)mesh.triangles;
            if (corners == 0) continue;
            free(stream);
            free(uvs);
            stream = malloc(corners * 6 * sizeof(float)); /* position, normal */
            uvs = malloc(corners * 2 * sizeof(float));
            if (!stream || !uvs) goto out;
            if (!ok(skelmap_model_skin_corners(model, pose, m, stream, 24, stream + 3, 24, corners),
                    "skin"))
                goto out;
            bool textured = mesh.texcoords != SKELMAP_TEXCOORDS_NONE;
            if (textured && !ok(skelmap_mesh_corner_texcoords(model, m, uvs, 0, corners), "uv"))
                goto out;
            if (!textured) memset(uvs, 0, corners * 2 * sizeof(float));
            if (pass == 0) {
                for (size_t c = 0; c < corners; c++)
                    for (int k = 0; k < 3; k++) {
                        lo[k] = fminf(lo[k], stream[6 * c + (size_t)k]);
                        hi[k] = fmaxf(hi[k], stream[6 * c + (size_t)k]);
                    }
                continue;
            }
            int up = y_up ? 1 : 2, depth_axis = y_up ? 2 : 1;
            float extent = fmaxf(hi[0] - lo[0], hi[up] - lo[up]);
            float scale = extent > 0.0f ? 0.9f * (float)size / extent : 1.0f;
            float cx = 0.5f * (lo[0] + hi[0]), cy = 0.5f * (lo[up] + hi[up]);
            for (uint32_t s = 0; s < mesh.submeshes; s++) {
                SkelmapSubmesh sub;
                if (!ok(skelmap_submesh(model, m, s, &sub), "submesh")) goto out;
                Texture none = {0, 0, NULL};
                const Texture *tex = &none;
                if (sub.material >= 0) {
                    SkelmapMaterial material;
                    if (!ok(skelmap_material(model, (uint32_t)sub.material, &material), "material"))
                        goto out;
                    if (material.skin >= 0 && (uint32_t)material.skin < counts.skins)
                        tex = &skins[material.skin];
                }
                uint32_t *list = malloc((sub.triangles ? sub.triangles : 1) * sizeof *list);
                if (!list) goto out;
                if (!ok(skelmap_submesh_triangles(model, m, s, list, sub.triangles), "triangles")) {
                    free(list);
                    goto out;
                }
                for (uint32_t i = 0; i < sub.triangles; i++) {
                    size_t t = list[i];
                    float screen[3][3], uv[3][2], normal_up = 0.0f;
                    for (int k = 0; k < 3; k++) {
                        const float *v = stream + 6 * (3 * t + (size_t)k);
                        screen[k][0] = (v[0] - cx) * scale + 0.5f * (float)size;
                        screen[k][1] = 0.5f * (float)size - (v[up] - cy) * scale;
                        screen[k][2] = y_up ? -v[depth_axis] : v[depth_axis];
                        uv[k][0] = uvs[2 * (3 * t + (size_t)k)];
                        uv[k][1] = uvs[2 * (3 * t + (size_t)k) + 1];
                        normal_up += v[3 + depth_axis] * (y_up ? 1.0f : -1.0f);
                    }
                    float shade = 0.35f + 0.65f * fabsf(normal_up / 3.0f);
                    fill(&img, (const float(*)[3])screen, (const float(*)[2])uv, fminf(shade, 1.0f),
                         tex);
                    triangles++;
                }
                free(list);
            }
        }
    }

    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        perror(argv[2]);
        goto out;
    }
    fprintf(f, "P6\n%d %d\n255\n", size, size);
    size_t bytes = (size_t)size * (size_t)size * 3;
    bool written = fwrite(img.rgb, 1, bytes, f) == bytes;
    if (fclose(f) != 0 || !written) goto out;
    uint64_t sum = 0;
    for (size_t i = 0; i < bytes; i++) sum = sum * 31 + img.rgb[i];
    printf("rendered format=%u triangles=%llu pixels=%llu textured=%llu checksum=%016llx\n",
           skelmap_model_format(model), (unsigned long long)triangles,
           (unsigned long long)img.drawn, (unsigned long long)img.textured,
           (unsigned long long)sum);
    rc = 0;
out:
    if (skins)
        for (uint32_t k = 0; k < counts.skins; k++) free(skins[k].rgba);
    free(skins);
    free(stream);
    free(uvs);
    free(img.rgb);
    free(img.depth);
    skelmap_pose_free(pose);
    skelmap_model_free(model);
    return rc;
}
