"""models.list, user.get, user.subscription.get. Parameters: none."""

from sdk_steps import client, run

el = client()

run(
    [
        ("models_list", lambda: el.models.list()),
        ("user_get", lambda: el.user.get()),
        ("user_subscription_get", lambda: el.user.subscription.get()),
    ]
)
