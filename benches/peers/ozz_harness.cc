// ozz_harness: times ozz-animation's SkinningJob, and its SamplingJob + LocalToModelJob, for
// benches/peers.rs.
//
// Written for skelmap's peer benchmarks; it links ozz-animation 0.16 (MIT) but copies none
// of its code. The bench spawns this program once and talks to it over stdin/stdout, one
// request line and one reply line at a time:
//
//   load NAME PATH            read a skinning input (layout below)   -> "ok VERTICES PARTS"
//   clip NAME PATH            read a skeleton and its frames (layout below) and build an
//                             ozz Skeleton and Animation with the offline builders
//                                                                    -> "ok JOINTS FRAMES"
//   run NAME THREADS ITERS    ITERS calls, timed with                -> "ok NANOSECONDS"
//                             std::chrono::steady_clock around the whole loop: a skinning
//                             input is skinned; a clip is sampled (SamplingJob) and its
//                             model-space matrices built (LocalToModelJob), playing forward
//                             one frame per call, halfway between frames (1 thread only)
//   dump NAME THREADS PATH    one call, written to PATH as float32:  -> "ok"
//                             a skinning input's positions, then its normals (3 per vertex,
//                             in part order); a clip's model-space matrices at frame
//                             FRAMES / 2 + 0.5 (16 per joint, column-major, in the input's
//                             joint order)
//   quit                      exit
//
// Any failure replies "err MESSAGE".
//
// Skinning input file, little-endian:
//   "SKOZZ01\0", u32 joints, u32 parts, u32 vertices, u32 0,
//   f32 matrices[joints][16] (column-major 4x4: ozz's Float4x4 layout),
//   then per part: u32 influences, u32 vertices,
//     f32 positions[vertices][3], f32 normals[vertices][3],
//     u16 joint_indices[vertices * influences] (zero-padded to a multiple of 4 bytes),
//     f32 weights[vertices * (influences - 1)].
//
// Clip input file, little-endian:
//   "SKOZA01\0", u32 joints, u32 frames, u32 scaled (0 or 1), u32 0,
//   i32 parents[joints] (-1 for a root; parents come before their children),
//   then per frame, per joint: f32 rotation[4] (x, y, z, w), f32 translation[3]
//   (parent-relative), and when `scaled` f32 scale[3] (applied before the rotation;
//   otherwise scale 1, and the animation has no scale keys). Frame f is keyed at time f: the
//   animation lasts
//   FRAMES - 1 time units, and frame 0 is also the skeleton's rest pose.
//
// Threads: THREADS = 1 runs every part's job on the calling thread. THREADS = 2 splits each
// part in two halves: the calling thread runs the first halves while one persistent worker
// thread (created at the first 2-thread request and kept alive, woken through a mutex and a
// condition variable) runs the second halves; the call returns when both are done.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

struct Part {
  int influences = 0;
  int vertices = 0;
  std::vector<float> positions;
  std::vector<float> normals;
  std::vector<uint16_t> indices;
  std::vector<float> weights;
};

struct Input {
  std::vector<ozz::math::Float4x4> matrices;
  std::vector<Part> parts;
  size_t vertices = 0;
  std::vector<float> out_positions;
  std::vector<float> out_normals;
  // Jobs built once at load: one per part (1 thread), and each part in two halves.
  std::vector<ozz::geometry::SkinningJob> whole;
  std::vector<ozz::geometry::SkinningJob> first_halves;
  std::vector<ozz::geometry::SkinningJob> second_halves;
};

// One vertex range [begin, end) of a part, writing at output vertex `out`.
ozz::geometry::SkinningJob make_job(Input& in, Part& part, int begin, int end,
                                    size_t out) {
  ozz::geometry::SkinningJob job;
  const int n = end - begin;
  const int k = part.influences;
  job.vertex_count = n;
  job.influences_count = k;
  job.joint_matrices = ozz::span<const ozz::math::Float4x4>(in.matrices.data(),
                                                            in.matrices.size());
  job.joint_indices = ozz::span<const uint16_t>(
      part.indices.data() + static_cast<size_t>(begin) * k,
      static_cast<size_t>(n) * k);
  job.joint_indices_stride = sizeof(uint16_t) * k;
  if (k > 1) {
    job.joint_weights = ozz::span<const float>(
        part.weights.data() + static_cast<size_t>(begin) * (k - 1),
        static_cast<size_t>(n) * (k - 1));
    job.joint_weights_stride = sizeof(float) * (k - 1);
  }
  job.in_positions = ozz::span<const float>(
      part.positions.data() + static_cast<size_t>(begin) * 3,
      static_cast<size_t>(n) * 3);
  job.in_positions_stride = sizeof(float) * 3;
  job.in_normals = ozz::span<const float>(
      part.normals.data() + static_cast<size_t>(begin) * 3,
      static_cast<size_t>(n) * 3);
  job.in_normals_stride = sizeof(float) * 3;
  job.out_positions = ozz::span<float>(in.out_positions.data() + (out + begin) * 3,
                                       static_cast<size_t>(n) * 3);
  job.out_positions_stride = sizeof(float) * 3;
  job.out_normals = ozz::span<float>(in.out_normals.data() + (out + begin) * 3,
                                     static_cast<size_t>(n) * 3);
  job.out_normals_stride = sizeof(float) * 3;
  return job;
}

bool run_jobs(const std::vector<ozz::geometry::SkinningJob>& jobs) {
  bool ok = true;
  for (const auto& job : jobs) {
    ok &= job.Run();
  }
  return ok;
}

// A reader over the whole input file.
struct Reader {
  std::vector<char> bytes;
  size_t at = 0;
  bool take(void* dst, size_t n) {
    if (bytes.size() - at < n) return false;
    std::memcpy(dst, bytes.data() + at, n);
    at += n;
    return true;
  }
  bool u32(uint32_t& v) { return take(&v, 4); }
};

// Reads the file at `path` into `r` and its header: the 8-byte `magic` (7 characters and a
// NUL), then four u32 words into `head`. Returns an error message, empty on success.
std::string open_input(const std::string& path, const char* magic, Reader& r,
                       uint32_t (&head)[4]) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return "cannot open " + path;
  r.bytes.assign(std::istreambuf_iterator<char>(file),
                 std::istreambuf_iterator<char>());
  char got[8];
  if (!r.take(got, 8) || std::memcmp(got, magic, 8) != 0)
    return std::string("not an ") + magic + " file";
  for (uint32_t& word : head) {
    if (!r.u32(word)) return "short header";
  }
  return "";
}

std::string load(const std::string& path, Input& in) {
  Reader r;
  uint32_t head[4];
  const std::string error = open_input(path, "SKOZZ01", r, head);
  if (!error.empty()) return error;
  const uint32_t joints = head[0], parts = head[1], vertices = head[2];
  in.matrices.resize(joints);
  for (auto& m : in.matrices) {
    float f[16];
    if (!r.take(f, sizeof f)) return "short matrices";
    for (int c = 0; c < 4; ++c) {
      m.cols[c] = ozz::math::simd_float4::Load(f[c * 4], f[c * 4 + 1],
                                               f[c * 4 + 2], f[c * 4 + 3]);
    }
  }
  in.parts.resize(parts);
  size_t total = 0;
  for (auto& p : in.parts) {
    uint32_t k, n;
    if (!r.u32(k) || !r.u32(n) || k == 0) return "bad part header";
    p.influences = static_cast<int>(k);
    p.vertices = static_cast<int>(n);
    p.positions.resize(size_t{n} * 3);
    p.normals.resize(size_t{n} * 3);
    p.indices.resize(size_t{n} * k);
    p.weights.resize(size_t{n} * (k - 1));
    const size_t index_bytes = p.indices.size() * 2;
    uint8_t pad[4];
    if (!r.take(p.positions.data(), p.positions.size() * 4) ||
        !r.take(p.normals.data(), p.normals.size() * 4) ||
        !r.take(p.indices.data(), index_bytes) ||
        !r.take(pad, (4 - index_bytes % 4) % 4) ||
        !r.take(p.weights.data(), p.weights.size() * 4))
      return "short part";
    for (uint16_t j : p.indices) {
      if (j >= joints) return "joint index out of range";
    }
    total += n;
  }
  if (total != vertices) return "vertex count mismatch";
  in.vertices = total;
  in.out_positions.assign(total * 3, 0.0f);
  in.out_normals.assign(total * 3, 0.0f);
  size_t out = 0;
  for (auto& p : in.parts) {
    const int half = p.vertices / 2;
    in.whole.push_back(make_job(in, p, 0, p.vertices, out));
    if (half > 0) in.first_halves.push_back(make_job(in, p, 0, half, out));
    if (p.vertices - half > 0)
      in.second_halves.push_back(make_job(in, p, half, p.vertices, out));
    out += p.vertices;
  }
  for (const auto& job : in.whole) {
    if (!job.Validate()) return "ozz rejects a job";
  }
  return "";
}

// A skeleton and its animation, built by ozz's offline builders, with the buffers the
// runtime jobs need.
struct Clip {
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton;
  ozz::unique_ptr<ozz::animation::Animation> animation;
  std::unique_ptr<ozz::animation::SamplingJob::Context> context;
  std::vector<ozz::math::SoaTransform> locals;
  std::vector<ozz::math::Float4x4> models;
  // For each input joint, its index in ozz's skeleton (which orders joints its own way).
  std::vector<int> ozz_index;
  int frames = 0;
  int frame = 0;  // the frame the next `run` call starts from
  // `blend`: the sampled layers and the blended pose.
  std::vector<std::vector<ozz::math::SoaTransform>> layer_poses;
  // The job's layer list over `layer_poses`, built once by `sample_layers` (as a game
  // keeps it), so the timed blend does not allocate.
  std::vector<ozz::animation::BlendingJob::Layer> layers;
  std::vector<ozz::math::SoaTransform> blended;
};

// A key of the clip file: `stride` floats (7, or 10 with scale).
struct Key {
  const float* p;
  size_t stride;
  ozz::math::Quaternion rotation() const {
    return ozz::math::Quaternion(p[0], p[1], p[2], p[3]);
  }
  ozz::math::Float3 translation() const {
    return ozz::math::Float3(p[4], p[5], p[6]);
  }
  ozz::math::Float3 scale() const {
    return stride > 7 ? ozz::math::Float3(p[7], p[8], p[9])
                      : ozz::math::Float3::one();
  }
};

ozz::animation::offline::RawSkeleton::Joint make_joint(
    int joint, const std::vector<std::vector<int>>& children,
    const std::vector<float>& frame0, size_t stride) {
  ozz::animation::offline::RawSkeleton::Joint out;
  out.name = "j" + std::to_string(joint);
  const Key key{frame0.data() + static_cast<size_t>(joint) * stride, stride};
  out.transform.rotation = key.rotation();
  out.transform.translation = key.translation();
  out.transform.scale = key.scale();
  for (int child : children[joint]) {
    out.children.push_back(make_joint(child, children, frame0, stride));
  }
  return out;
}

std::string load_clip(const std::string& path, Clip& clip) {
  Reader r;
  uint32_t head[4];
  const std::string error = open_input(path, "SKOZA01", r, head);
  if (!error.empty()) return error;
  const uint32_t joints = head[0], frames = head[1];
  if (joints == 0 || frames < 2) return "need joints and at least two frames";
  if (head[2] > 1) return "the scale flag is neither 0 nor 1";
  const size_t stride = head[2] != 0 ? 10 : 7;
  std::vector<int32_t> parents(joints);
  if (!r.take(parents.data(), joints * 4)) return "short parents";
  std::vector<float> keys(size_t{frames} * joints * stride);
  if (!r.take(keys.data(), keys.size() * 4)) return "short frames";
  std::vector<std::vector<int>> children(joints);
  std::vector<int> roots;
  for (uint32_t j = 0; j < joints; ++j) {
    const int parent = parents[j];
    if (parent < 0) {
      roots.push_back(static_cast<int>(j));
    } else if (static_cast<uint32_t>(parent) < j) {
      children[parent].push_back(static_cast<int>(j));
    } else {
      return "a parent after its child";
    }
  }
  std::vector<float> frame0(keys.begin(), keys.begin() + size_t{joints} * stride);
  ozz::animation::offline::RawSkeleton raw_skeleton;
  for (int root : roots) {
    raw_skeleton.roots.push_back(make_joint(root, children, frame0, stride));
  }
  ozz::animation::offline::SkeletonBuilder build_skeleton;
  clip.skeleton = build_skeleton(raw_skeleton);
  if (!clip.skeleton) return "ozz's SkeletonBuilder refuses the skeleton";
  // Map ozz's joint order back to the input's, by name.
  std::map<std::string, int> by_name;
  const auto names = clip.skeleton->joint_names();
  for (size_t k = 0; k < names.size(); ++k) by_name[names[k]] = static_cast<int>(k);
  clip.ozz_index.resize(joints);
  for (uint32_t j = 0; j < joints; ++j) {
    clip.ozz_index[j] = by_name.at("j" + std::to_string(j));
  }
  ozz::animation::offline::RawAnimation raw;
  raw.duration = static_cast<float>(frames - 1);
  raw.tracks.resize(joints);
  for (uint32_t j = 0; j < joints; ++j) {
    auto& track = raw.tracks[clip.ozz_index[j]];
    for (uint32_t f = 0; f < frames; ++f) {
      const Key key{keys.data() + (size_t{f} * joints + j) * stride, stride};
      const float time = static_cast<float>(f);
      track.rotations.push_back({time, key.rotation()});
      track.translations.push_back({time, key.translation()});
      if (stride > 7) track.scales.push_back({time, key.scale()});
    }
  }
  ozz::animation::offline::AnimationBuilder build_animation;
  clip.animation = build_animation(raw);
  if (!clip.animation) return "ozz's AnimationBuilder refuses the animation";
  clip.context = std::make_unique<ozz::animation::SamplingJob::Context>(
      clip.skeleton->num_joints());
  clip.locals.resize(clip.skeleton->num_soa_joints());
  clip.models.resize(clip.skeleton->num_joints());
  clip.frames = static_cast<int>(frames);
  return "";
}

// Samples `clip` halfway between frames `frame` and `frame + 1` and builds its model-space
// matrices.
bool pose(Clip& clip, int frame) {
  ozz::animation::SamplingJob sampling;
  sampling.animation = clip.animation.get();
  sampling.context = clip.context.get();
  sampling.ratio = (static_cast<float>(frame) + 0.5f) /
                   static_cast<float>(clip.frames - 1);
  sampling.output = ozz::make_span(clip.locals);
  ozz::animation::LocalToModelJob local_to_model;
  local_to_model.skeleton = clip.skeleton.get();
  local_to_model.input = ozz::make_span(clip.locals);
  local_to_model.output = ozz::make_span(clip.models);
  return sampling.Run() && local_to_model.Run();
}

// Samples `layers` poses of `clip` (layer k halfway between frames k and k + 1, wrapping
// past the last frame) for `blend`, untimed.
bool sample_layers(Clip& clip, int layers) {
  clip.layer_poses.assign(layers, std::vector<ozz::math::SoaTransform>(
                                      clip.skeleton->num_soa_joints()));
  clip.blended.resize(clip.skeleton->num_soa_joints());
  for (int k = 0; k < layers; ++k) {
    ozz::animation::SamplingJob sampling;
    sampling.animation = clip.animation.get();
    sampling.context = clip.context.get();
    const int frame = k % (clip.frames - 1);
    sampling.ratio = (static_cast<float>(frame) + 0.5f) /
                     static_cast<float>(clip.frames - 1);
    sampling.output = ozz::make_span(clip.layer_poses[k]);
    if (!sampling.Run()) return false;
  }
  clip.layers.resize(clip.layer_poses.size());
  for (size_t k = 0; k < clip.layers.size(); ++k) {
    clip.layers[k].weight = 1.f / static_cast<float>(k + 1);
    clip.layers[k].transform = ozz::make_span(clip.layer_poses[k]);
  }
  return true;
}

// The sampled layers (`clip.layers`: layer k at weight 1 / (k + 1)) blended over the rest
// pose with threshold 0.1 into `clip.blended`, as the bench's skelmap side blends them.
bool blend(Clip& clip) {
  ozz::animation::BlendingJob job;
  job.threshold = 0.1f;
  job.layers = ozz::make_span(clip.layers);
  job.rest_pose = clip.skeleton->joint_rest_poses();
  job.output = ozz::make_span(clip.blended);
  return job.Run();
}

// One persistent worker thread: `run` hands it a task and returns at once; `wait` blocks
// until it has finished.
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void run(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = std::move(task);
      ++posted_;
    }
    wake_.notify_one();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return done_ == posted_; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return quit_ || done_ != posted_; });
      if (quit_) return;
      auto task = task_;
      lock.unlock();
      task();
      lock.lock();
      done_ = posted_;
      done_cv_.notify_one();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_cv_;
  std::function<void()> task_;
  uint64_t posted_ = 0;
  uint64_t done_ = 0;
  bool quit_ = false;
  std::thread thread_;
};

bool skin(Input& in, int threads, Worker* worker) {
  if (threads == 1) return run_jobs(in.whole);
  bool second = true;
  worker->run([&] { second = run_jobs(in.second_halves); });
  const bool first = run_jobs(in.first_halves);
  worker->wait();
  return first && second;
}

// Runs the IK `job` ITERS times and answers `ok NS` followed by its corrections (x, y, z, w
// each, as the job left them) and 1 or 0 for `reached`.
template <typename Job>
void run_ik(const Job& job, uint64_t iters,
            std::initializer_list<const ozz::math::SimdQuaternion*> corrections,
            const bool& reached) {
  bool ok = true;
  const auto begin = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < iters; ++i) ok &= job.Run();
  const auto stop = std::chrono::steady_clock::now();
  if (!ok) {
    std::cout << "err the job refused its inputs" << std::endl;
    return;
  }
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(stop - begin);
  std::cout << "ok " << ns.count();
  std::cout.precision(9);
  for (const ozz::math::SimdQuaternion* correction : corrections) {
    float q[4];
    ozz::math::StorePtrU(correction->xyzw, q);
    for (float x : q) std::cout << " " << x;
  }
  std::cout << " " << (reached ? 1 : 0) << std::endl;
}

// `ik CASE ITERS` followed by 48 numbers: the start, middle and end joints' model-space
// matrices (each 12 numbers: 4 columns of x, y, z), then target, pole vector and middle
// axis (3 each), then twist angle, soften and weight. Runs ozz's `IKTwoBoneJob` ITERS times
// (ITERS >= 1) and answers `ok NS` followed by the start and middle corrections (x, y, z, w
// each) and 1 or 0 for reached.
void two_bone_ik(std::istringstream& words) {
  uint64_t iters = 0;
  words >> iters;
  float v[48];
  for (float& x : v) words >> x;
  if (!words || iters == 0) {
    std::cout << "err ik wants ITERS >= 1 and 48 numbers" << std::endl;
    return;
  }
  ozz::math::Float4x4 joints[3];
  for (int j = 0; j < 3; ++j) {
    for (int c = 0; c < 4; ++c) {
      const float* p = v + j * 12 + c * 3;
      joints[j].cols[c] = ozz::math::simd_float4::Load(p[0], p[1], p[2], c == 3 ? 1.f : 0.f);
    }
  }
  const float* rest = v + 36;
  ozz::animation::IKTwoBoneJob job;
  job.target = ozz::math::simd_float4::Load(rest[0], rest[1], rest[2], 0.f);
  job.pole_vector = ozz::math::simd_float4::Load(rest[3], rest[4], rest[5], 0.f);
  job.mid_axis = ozz::math::simd_float4::Load(rest[6], rest[7], rest[8], 0.f);
  job.twist_angle = rest[9];
  job.soften = rest[10];
  job.weight = rest[11];
  job.start_joint = &joints[0];
  job.mid_joint = &joints[1];
  job.end_joint = &joints[2];
  ozz::math::SimdQuaternion start, mid;
  bool reached = false;
  job.start_joint_correction = &start;
  job.mid_joint_correction = &mid;
  job.reached = &reached;
  run_ik(job, iters, {&start, &mid}, reached);
}

// `aim CASE ITERS` followed by 29 numbers: the joint's model-space matrix (12 numbers: 4
// columns of x, y, z), then target, forward, offset, up and pole vector (3 each), then twist
// angle and weight. Runs ozz's `IKAimJob` ITERS times (ITERS >= 1) and answers `ok NS`
// followed by the correction (x, y, z, w) and 1 or 0 for reached.
void aim_ik(std::istringstream& words) {
  uint64_t iters = 0;
  words >> iters;
  float v[29];
  for (float& x : v) words >> x;
  if (!words || iters == 0) {
    std::cout << "err aim wants ITERS >= 1 and 29 numbers" << std::endl;
    return;
  }
  ozz::math::Float4x4 joint;
  for (int c = 0; c < 4; ++c) {
    const float* p = v + c * 3;
    joint.cols[c] = ozz::math::simd_float4::Load(p[0], p[1], p[2], c == 3 ? 1.f : 0.f);
  }
  const float* rest = v + 12;
  const auto vector = [&](int k) {
    return ozz::math::simd_float4::Load(rest[3 * k], rest[3 * k + 1], rest[3 * k + 2], 0.f);
  };
  ozz::animation::IKAimJob job;
  job.target = vector(0);
  job.forward = vector(1);
  job.offset = vector(2);
  job.up = vector(3);
  job.pole_vector = vector(4);
  job.twist_angle = rest[15];
  job.weight = rest[16];
  job.joint = &joint;
  ozz::math::SimdQuaternion correction;
  bool reached = false;
  job.joint_correction = &correction;
  job.reached = &reached;
  run_ik(job, iters, {&correction}, reached);
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::map<std::string, Input> inputs;
  std::map<std::string, Clip> clips;
  std::unique_ptr<Worker> worker;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command, name;
    words >> command;
    if (command == "quit") break;
    words >> name;
    if (command == "load") {
      std::string path;
      words >> path;
      Input in;
      const std::string error = load(path, in);
      if (!error.empty()) {
        std::cout << "err " << error << std::endl;
        continue;
      }
      const size_t vertices = in.vertices, parts = in.parts.size();
      inputs.erase(name);
      // Jobs point into the input's vectors, whose buffers move with it unchanged.
      inputs.emplace(name, std::move(in));
      std::cout << "ok " << vertices << " " << parts << std::endl;
      continue;
    }
    if (command == "clip") {
      std::string path;
      words >> path;
      Clip clip;
      const std::string error = load_clip(path, clip);
      if (!error.empty()) {
        std::cout << "err " << error << std::endl;
        continue;
      }
      const int joints = clip.skeleton->num_joints(), frames = clip.frames;
      clips.erase(name);
      clips.emplace(name, std::move(clip));
      std::cout << "ok " << joints << " " << frames << std::endl;
      continue;
    }
    if (command == "ik") {
      two_bone_ik(words);
      continue;
    }
    if (command == "aim") {
      aim_ik(words);
      continue;
    }
    int threads = 0;
    words >> threads;
    auto found_clip = clips.find(name);
    if (found_clip != clips.end() && threads == 1) {
      Clip& clip = found_clip->second;
      if (command == "run") {
        uint64_t iters = 0;
        words >> iters;
        bool ok = true;
        int frame = clip.frame;
        const auto start = std::chrono::steady_clock::now();
        for (uint64_t i = 0; i < iters; ++i) {
          ok &= pose(clip, frame);
          frame = frame + 1 < clip.frames - 1 ? frame + 1 : 0;
        }
        const auto stop = std::chrono::steady_clock::now();
        clip.frame = frame;
        if (!ok) {
          std::cout << "err a job failed" << std::endl;
          continue;
        }
        const auto ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
        std::cout << "ok " << ns.count() << std::endl;
      } else if (command == "blend" || command == "blenddump") {
        // `blend NAME 1 LAYERS ITERS`: times ITERS blends of LAYERS sampled poses;
        // `blenddump NAME 1 LAYERS PATH`: one blend, its model-space matrices written.
        int count = 0;
        words >> count;
        if (count < 1 || clip.frames < 2 || !sample_layers(clip, count)) {
          std::cout << "err cannot sample the layers" << std::endl;
          continue;
        }
        if (command == "blend") {
          uint64_t iters = 0;
          words >> iters;
          bool ok = true;
          const auto start = std::chrono::steady_clock::now();
          for (uint64_t i = 0; i < iters; ++i) ok &= blend(clip);
          const auto stop = std::chrono::steady_clock::now();
          const auto ns =
              std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
          if (ok) {
            std::cout << "ok " << ns.count() << std::endl;
          } else {
            std::cout << "err a job failed" << std::endl;
          }
          continue;
        }
        std::string path;
        words >> path;
        ozz::animation::LocalToModelJob local_to_model;
        local_to_model.skeleton = clip.skeleton.get();
        local_to_model.input = ozz::make_span(clip.blended);
        local_to_model.output = ozz::make_span(clip.models);
        if (!blend(clip) || !local_to_model.Run()) {
          std::cout << "err a job failed" << std::endl;
          continue;
        }
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        for (int ozz_joint : clip.ozz_index) {
          const ozz::math::Float4x4& m = clip.models[ozz_joint];
          float column[4];
          for (const auto& c : m.cols) {
            ozz::math::StorePtrU(c, column);
            out.write(reinterpret_cast<const char*>(column), sizeof column);
          }
        }
        out.close();
        std::cout << (out ? "ok" : "err cannot write the dump") << std::endl;
      } else if (command == "dump") {
        std::string path;
        words >> path;
        if (!pose(clip, clip.frames / 2)) {
          std::cout << "err a job failed" << std::endl;
          continue;
        }
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        for (int ozz_joint : clip.ozz_index) {
          const ozz::math::Float4x4& m = clip.models[ozz_joint];
          float column[4];
          for (const auto& c : m.cols) {
            ozz::math::StorePtrU(c, column);
            out.write(reinterpret_cast<const char*>(column), sizeof column);
          }
        }
        out.close();  // flushed before the reply, which lets the bench read it
        std::cout << (out ? "ok" : "err cannot write the dump") << std::endl;
      } else {
        std::cout << "err unknown command: " << line << std::endl;
      }
      continue;
    }
    auto found = inputs.find(name);
    if (found == inputs.end() || (threads != 1 && threads != 2)) {
      std::cout << "err unknown input or thread count: " << line << std::endl;
      continue;
    }
    Input& in = found->second;
    if (threads == 2 && !worker) worker = std::make_unique<Worker>();
    if (command == "run") {
      uint64_t iters = 0;
      words >> iters;
      bool ok = true;
      const auto start = std::chrono::steady_clock::now();
      for (uint64_t i = 0; i < iters; ++i) {
        ok &= skin(in, threads, worker.get());
      }
      const auto stop = std::chrono::steady_clock::now();
      if (!ok) {
        std::cout << "err a job failed" << std::endl;
        continue;
      }
      const auto ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
      std::cout << "ok " << ns.count() << std::endl;
    } else if (command == "dump") {
      std::string path;
      words >> path;
      std::fill(in.out_positions.begin(), in.out_positions.end(), 0.0f);
      std::fill(in.out_normals.begin(), in.out_normals.end(), 0.0f);
      if (!skin(in, threads, worker.get())) {
        std::cout << "err a job failed" << std::endl;
        continue;
      }
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(in.out_positions.data()),
                in.out_positions.size() * 4);
      out.write(reinterpret_cast<const char*>(in.out_normals.data()),
                in.out_normals.size() * 4);
      out.close();  // flushed before the reply, which lets the bench read it
      std::cout << (out ? "ok" : "err cannot write the dump") << std::endl;
    } else {
      std::cout << "err unknown command: " << line << std::endl;
    }
  }
  return 0;
}
