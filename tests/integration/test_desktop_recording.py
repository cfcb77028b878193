"""`recording: low|high` for real: ffmpeg records the headed desktop to a video the attempt keeps."""

from __future__ import annotations

import pytest

from clawmark.taskenv.desktop import VIDEO_PATH, start_desktop, start_recording, stop_recording
from tests.support.desktop_fixtures import desktop_image, headed_env  # noqa: F401 - fixture

pytestmark = pytest.mark.docker
PROBE = f"ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height -of csv=p=0 {VIDEO_PATH}"


def test_the_desktop_is_recorded_to_a_playable_video(desktop_image, tmp_path):
    with headed_env(desktop_image, tmp_path, "desktop_record") as sandbox:
        start_desktop(sandbox)
        assert stop_recording(sandbox, tmp_path / "none.mp4") is None  # nothing recorded yet
        start_recording(sandbox, "low")
        sandbox.exec("DISPLAY=:99 setsid xterm -e 'sleep 60' >/dev/null 2>&1 & sleep 4", timeout_s=30)
        video = stop_recording(sandbox, tmp_path / "artifacts" / "screen.mp4")
        assert sandbox.exec(PROBE, timeout_s=60).stdout.strip() == "h264,1280,720"  # upstream's low tier
        frames = sandbox.exec(f"ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                              f"stream=nb_read_frames -of csv=p=0 {VIDEO_PATH}", timeout_s=60).stdout.strip()
    assert video is not None and video.stat().st_size > 1000
    assert video.read_bytes()[4:8] == b"ftyp"
    assert int(frames) >= 10  # about 5 frames per second over 4 seconds
